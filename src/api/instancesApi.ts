// The endpoints of one instance: read it, change its state, label or bid, reboot, recycle,
// destroy, and rent it (PUT /asks/{offer}/, never retried: one click rents at most one machine).
import type { Instance, ServiceApi, ShowCallOptions } from './types';
import { ApiError, isApiError } from './errors';
import { NOT_VISIBLE_WINDOW_MS } from './visibility';
import { invalid, positiveId, type Pipeline } from './pipeline';
import { INSTANCES_PATH as I, noteInstanceSecrets } from './instanceListApi';
import * as l10n from '@vscode/l10n';

type InstanceCalls = Pick<
  ServiceApi,
  'showInstance' | 'setInstanceState' | 'setInstanceLabel' | 'destroyInstance' | 'createInstance' | 'rebootInstance' | 'recycleInstance' | 'changeBid'
>;

/**
 * GET one instance. A 404 (or null) for an instance created here within a minute is "not
 * visible yet", not "gone"; a deprecated show endpoint reads the record through the list.
 */
async function showInstance(
  p: Pipeline,
  find: ServiceApi['findInstances'],
  createdHere: Map<number, number>,
  id: number,
  o: ShowCallOptions | undefined,
): Promise<Instance> {
  positiveId(id, 'showInstance');
  const path = `${I}${id}/`;
  const createdAt = o?.createdAtMs ?? createdHere.get(id);
  const recent = createdAt !== undefined && Date.now() - createdAt < NOT_VISIBLE_WINDOW_MS;
  const notVisible = () =>
    new ApiError({
      kind: 'not_visible_yet',
      status: 404,
      code: 'not_visible_yet',
      method: 'GET',
      path,
      message: `GET ${path}: instance ${id} was created ${Math.round((Date.now() - createdAt!) / 1000)} s ago and is not visible yet`,
    });
  const gone = () =>
    new ApiError({ kind: 'http', status: 404, code: 'no_such_instance', method: 'GET', path, message: `GET ${path}: instance ${id} does not exist` });
  let r: Instance | null;
  try {
    r = await p.send({ method: 'GET', path, schema: (s) => s.showInstanceSchema, pace: 'show' }, o);
  } catch (e) {
    if (isApiError(e) && e.kind === 'http' && e.status === 410 && e.code === 'deprecated_endpoint') {
      // Never shown as a failure: read the one record through the list instead, once.
      p.log.info(`GET ${path}: deprecated_endpoint; reading instance ${id} through the instance list`);
      r = (await find({ id }, o))[0] ?? null;
    } else if (recent && isApiError(e) && e.kind === 'http' && e.status === 404) throw notVisible();
    else throw e;
  }
  if (r === null) {
    // {"instances": null} (or the seed's empty object): gone, unless it is new.
    if (recent) throw notVisible();
    throw gone();
  }
  createdHere.delete(id);
  noteInstanceSecrets(p, r);
  return r;
}

export function instancesApi(p: Pipeline, find: ServiceApi['findInstances']): InstanceCalls {
  /** Instances this client created, with when: a 404/null for them within a minute is "not visible yet". */
  const createdHere = new Map<number, number>();
  const { send } = p;
  return {
    showInstance: (id, o) => showInstance(p, find, createdHere, id, o),
    async setInstanceState(id, state, o) {
      positiveId(id, 'setInstanceState');
      if (state !== 'running' && state !== 'stopped') throw invalid('setInstanceState', [l10n.t("state: must be 'running' or 'stopped'")]);
      return send({ method: 'PUT', path: `${I}${id}/`, body: { state }, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'update' }, o);
    },
    async setInstanceLabel(id, label, o) {
      positiveId(id, 'setInstanceLabel');
      if (typeof label !== 'string') throw invalid('setInstanceLabel', [l10n.t('label: must be a string')]);
      return send({ method: 'PUT', path: `${I}${id}/`, body: { label }, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'update' }, o);
    },
    async destroyInstance(id, o) {
      positiveId(id, 'destroyInstance');
      return send({ method: 'DELETE', path: `${I}${id}/`, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'destroy' }, o);
    },
    async createInstance(offerId, req, o) {
      positiveId(offerId, 'createInstance');
      p.secrets.add(...(o?.secrets ?? []));
      p.noteRequestSecrets(req);
      const interruptible = o?.interruptible ?? (req.price !== undefined && req.price !== null);
      const s = await p.schemas();
      const problems = s.validateCreateRequest(req, { interruptible });
      if (problems.length) throw invalid('createInstance', problems);
      const r = await send(
        { method: 'PUT', path: `/api/v0/asks/${offerId}/`, body: req, schema: (s) => s.createResultSchema, creation: true, pace: 'create' },
        o,
      );
      p.secrets.add(r.instance_api_key);
      createdHere.set(r.new_contract, Date.now());
      return r;
    },
    async rebootInstance(id, o) {
      positiveId(id, 'rebootInstance');
      return send({ method: 'PUT', path: `${I}reboot/${id}/`, body: {}, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async recycleInstance(id, o) {
      positiveId(id, 'recycleInstance');
      return send({ method: 'PUT', path: `${I}recycle/${id}/`, body: {}, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async changeBid(id, price, o) {
      positiveId(id, 'changeBid');
      if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price > 1000)
        throw invalid('changeBid', [l10n.t('price: must be dollars per hour above 0 (at most 1000), got {0}', String(price))]);
      return send({ method: 'PUT', path: `${I}bid_price/${id}/`, body: { client_id: 'me', price }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
  };
}
