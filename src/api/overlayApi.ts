// Overlay networks (service-today.md section 11): a private network on one physical cluster that
// the machines of a group join at creation (the env entry "-n NAME"). Creating and deleting one
// costs nothing by itself; deleting one also removes the instances on it (the service's rule), so
// only the group's owner (src/groups/) deletes, and only an overlay it created. Also the bulk
// start/stop of a group's members (PUT /api/v0/instances/, at most 64 ids; the seed has none).
import type { CallOptions, SimpleResult } from './types';
import { invalid, type Pipeline } from './pipeline';
import { INSTANCES_PATH } from './instanceListApi';
import type { Overlay } from './overlaySchema';
import * as l10n from '@vscode/l10n';

export type { Overlay };

const PATH = '/api/v0/overlay/';
/** The most ids one bulk call takes (service-today.md section 11). */
export const BULK_IDS_MAX = 64;

export interface OverlayApi {
  listOverlays(o?: CallOptions): Promise<Overlay[]>;
  /** POST {"cluster_id", "name"}. Not retried: a lost answer is settled by listing by name. */
  createOverlay(clusterId: number, name: string, o?: CallOptions): Promise<SimpleResult>;
  /** DELETE {"overlay_id"} (or {"overlay_name"} when its id is not known): the overlay and the instances on it. */
  deleteOverlay(ref: { overlayId: number } | { name: string }, o?: CallOptions): Promise<SimpleResult>;
  /**
   * PUT /api/v0/instances/ {"ids", "state"}: starts or stops up to 64 instances in one call (all or
   * nothing changes). The seed's service answers 404: the caller goes member by member.
   */
  setInstancesState(ids: readonly number[], state: 'running' | 'stopped', o?: CallOptions): Promise<SimpleResult>;
}

export function overlayApi(p: Pipeline): OverlayApi {
  return {
    listOverlays: (o) => p.send({ method: 'GET', path: PATH, schema: (s) => s.overlayListSchema }, o),
    createOverlay: (clusterId, name, o) =>
      p.send({ method: 'POST', path: PATH, body: { cluster_id: clusterId, name }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o),
    async setInstancesState(ids, state, o) {
      const bad = ids.length === 0 || ids.length > BULK_IDS_MAX || ids.some((id) => !Number.isInteger(id) || id <= 0);
      if (bad) throw invalid('setInstancesState', [l10n.t('ids: 1 to {0} positive integer ids', BULK_IDS_MAX)]);
      if (state !== 'running' && state !== 'stopped') throw invalid('setInstancesState', [l10n.t("state: must be 'running' or 'stopped'")]);
      return p.send(
        { method: 'PUT', path: INSTANCES_PATH, body: { ids: [...ids], state }, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'update' },
        o,
      );
    },
    deleteOverlay: (ref, o) =>
      p.send(
        {
          method: 'DELETE',
          path: PATH,
          body: 'overlayId' in ref ? { overlay_id: ref.overlayId } : { overlay_name: ref.name },
          schema: (s) => s.simpleResultSchema,
          emptyOk: true,
        },
        o,
      ),
  };
}
