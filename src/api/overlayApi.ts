// Overlay networks (service-today.md section 11): a private network on one physical cluster that
// the machines of a group join at creation (the env entry "-n NAME"). Creating and deleting one
// costs nothing by itself; deleting one also removes the instances on it (the service's rule), so
// only the group's owner (src/groups/) deletes, and only an overlay it created.
import type { CallOptions, SimpleResult } from './types';
import type { Pipeline } from './pipeline';
import type { Overlay } from './overlaySchema';

export type { Overlay };

const PATH = '/api/v0/overlay/';

export interface OverlayApi {
  listOverlays(o?: CallOptions): Promise<Overlay[]>;
  /** POST {"cluster_id", "name"}. Not retried: a lost answer is settled by listing by name. */
  createOverlay(clusterId: number, name: string, o?: CallOptions): Promise<SimpleResult>;
  /** DELETE {"overlay_id"} (or {"overlay_name"} when its id is not known): the overlay and the instances on it. */
  deleteOverlay(ref: { overlayId: number } | { name: string }, o?: CallOptions): Promise<SimpleResult>;
}

export function overlayApi(p: Pipeline): OverlayApi {
  return {
    listOverlays: (o) => p.send({ method: 'GET', path: PATH, schema: (s) => s.overlayListSchema }, o),
    createOverlay: (clusterId, name, o) => p.send({ method: 'POST', path: PATH, body: { cluster_id: clusterId, name }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o),
    deleteOverlay: (ref, o) => p.send({ method: 'DELETE', path: PATH, body: 'overlayId' in ref ? { overlay_id: ref.overlayId } : { overlay_name: ref.name }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o),
  };
}
