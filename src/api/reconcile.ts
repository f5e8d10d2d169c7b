// After an ambiguous creation (timeout/reset/unreadable answer), or when a read says an
// instance we rented is "not found", only the instance list settles what exists: look there by
// the instance's id and by the unique label the creation request carried.
import type { CallOptions, Instance, ServiceApi } from './types';

/**
 * One look at the instance list: the instance with `id`, else the one carrying exactly
 * `label` (the newest, should the service somehow hold two), else undefined. Each is one
 * filtered request (the v1 list's select_filters; servers without v1 have their v0 list
 * filtered by the client), not a walk of the whole list. A failed read throws: it proves
 * nothing either way.
 */
export async function locateCreation(api: ServiceApi, ref: { id?: number; label?: string }, o?: CallOptions): Promise<Instance | undefined> {
  if (ref.id === undefined && !ref.label) return undefined;
  if (ref.id !== undefined) {
    const byId = (await api.findInstances({ id: ref.id }, o)).find((i) => i.id === ref.id);
    if (byId) return byId;
  }
  if (!ref.label) return undefined;
  let found: Instance | undefined;
  for (const i of await api.findInstances({ label: ref.label }, o)) if (i.label === ref.label && (!found || i.id > found.id)) found = i;
  return found;
}

/** The instance carrying exactly `label`, or undefined when the list does not show one. */
export async function reconcileCreation(api: ServiceApi, label: string, o?: CallOptions): Promise<Instance | undefined> {
  if (!label) return undefined;
  return locateCreation(api, { label }, o);
}
