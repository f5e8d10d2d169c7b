// The instance list endpoints of the client: the v1 paged list walked to the end, or the v0
// list on a server that has no v1, switching once when one answers deprecated_endpoint.
import type { CallOptions, Instance, InstanceFilter, InstanceList, ServiceApi } from './types';
import { ApiError, isApiError } from './errors';
import { LIST_COLUMNS, v1ListPath } from './listing';
import { invalid, positiveId, type Pipeline } from './pipeline';
import * as l10n from '@vscode/l10n';

/**
 * Which instance list each base URL speaks, learnt once per session: 'v0' only after the
 * server showed it does not know v1 (a plain 404), 'v1' after v0 answered deprecated_endpoint.
 */
const listEraByBase = new Map<string, 'v1' | 'v0'>();

/** Tests: forget what was learnt (a new session). */
export function forgetListEras(): void {
  listEraByBase.clear();
}

/** For tests and diagnostics: what the client learnt about a base URL's instance list. */
export function learntListEra(baseUrl: string): 'v1' | 'v0' | undefined {
  return listEraByBase.get(baseUrl.replace(/\/+$/, ''));
}

export const INSTANCES_PATH = '/api/v0/instances/';

/**
 * Runs the list call of the era this base URL speaks. v1 first; the v0 list only after a
 * plain 404 (the server has no v1; a 4xx with a JSON error body is a real answer). A 410
 * deprecated_endpoint on either switches to the other and retries once.
 */
async function listWith(p: Pipeline, how: { v1(): Promise<InstanceList>; v0(): Promise<InstanceList> }): Promise<InstanceList> {
  const base = p.baseUrl;
  const era = listEraByBase.get(base) ?? 'v1';
  try {
    return await how[era]();
  } catch (e) {
    if (!isApiError(e) || e.kind !== 'http') throw e;
    const deprecated = e.status === 410 && e.code === 'deprecated_endpoint';
    const noV1 = era === 'v1' && e.status === 404 && !e.jsonBody;
    if (!deprecated && !noV1) throw e;
    const other = era === 'v1' ? 'v0' : 'v1';
    p.log.info(`instance list: ${noV1 ? 'the server has no /api/v1/instances/' : `${e.path ?? ''} is deprecated`}; using the ${other} list from now on`);
    listEraByBase.set(base, other);
    return how[other]();
  }
}

async function listV0(p: Pipeline, o: CallOptions | undefined): Promise<InstanceList> {
  const r = await p.send({ method: 'GET', path: INSTANCES_PATH, schema: (s) => s.instanceListSchema, eraSwitch: true }, o);
  listEraByBase.set(p.baseUrl, 'v0');
  return { ...r, source: 'v0', requests: 1 };
}

/**
 * Walks the v1 list: pages of 25 ordered by id (a keyset order, so rows never shift between
 * pages), following next_token until it is empty, paced by the list threshold. A row seen
 * twice (moved while walking) counts once, with its latest read.
 */
async function walkV1(
  p: Pipeline,
  cols: readonly string[] | undefined,
  filters: Record<string, unknown> | undefined,
  o: CallOptions | undefined,
  maxPages = Infinity,
): Promise<InstanceList> {
  const byId = new Map<number, Instance>();
  const tokens = new Set<string>();
  let token: string | undefined;
  let requests = 0;
  let total: number | undefined;
  for (;;) {
    const path = v1ListPath({ cols, filters, after: token });
    const page = await p.send({ method: 'GET', path, schema: (s) => s.instancePageSchema, pace: 'list', eraSwitch: requests === 0 }, o);
    requests++;
    if (requests === 1) listEraByBase.set(p.baseUrl, 'v1');
    total ??= page.total_instances;
    for (const i of page.instances) byId.set(i.id, i);
    token = page.next_token;
    if (!token || requests >= maxPages) break;
    if (tokens.has(token) || page.instances.length === 0)
      throw new ApiError({
        kind: 'malformed',
        method: 'GET',
        path: '/api/v1/instances/',
        message: 'GET /api/v1/instances/: the service handed out the same page twice (next_token repeats); the walk was stopped',
      });
    tokens.add(token);
  }
  const instances = [...byId.values()].sort((a, b) => a.id - b.id);
  return { instances_found: instances.length, instances, source: 'v1', requests, ...(total !== undefined ? { total_instances: total } : {}) };
}

function findFilters(f: InstanceFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (f.label !== undefined) {
    if (typeof f.label !== 'string' || f.label === '') throw invalid('findInstances', [l10n.t('label: must be a non-empty string')]);
    out.label = { eq: f.label };
  }
  if (f.id !== undefined) {
    positiveId(f.id, 'findInstances');
    out.id = { eq: f.id };
  }
  if (!Object.keys(out).length) throw invalid('findInstances', [l10n.t('give a label or an id to look for')]);
  return out;
}

function matchesFilter(i: Instance, f: InstanceFilter): boolean {
  return (f.label === undefined || i.label === f.label) && (f.id === undefined || i.id === f.id);
}

/** Remembers an instance's secrets (its Jupyter token) so no later log line can show them. */
export function noteInstanceSecrets(p: Pipeline, i: Instance): void {
  p.secrets.add(i.jupyter_token);
}

export function instanceListApi(p: Pipeline): Pick<ServiceApi, 'listInstances' | 'findInstances'> {
  return {
    async listInstances(o) {
      const all = o?.columns === 'all';
      const r = await listWith(p, {
        v1: async () => walkV1(p, all ? undefined : LIST_COLUMNS, undefined, o),
        v0: async () => listV0(p, o),
      });
      r.instances.forEach((i) => noteInstanceSecrets(p, i));
      return r;
    },
    async findInstances(filter, o) {
      const filters = findFilters(filter);
      const r = await listWith(p, {
        // One filtered request: a label or id matches at most a handful of instances.
        v1: async () => walkV1(p, undefined, filters, o, 1),
        v0: async () => {
          const l = await listV0(p, o);
          return { ...l, instances: l.instances.filter((i) => matchesFilter(i, filter)) };
        },
      });
      r.instances.forEach((i) => noteInstanceSecrets(p, i));
      return r.instances;
    },
  };
}
