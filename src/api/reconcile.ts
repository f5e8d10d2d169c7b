// After an ambiguous creation (timeout/reset/unreadable answer), or when a read says an
// instance we rented is "not found", only the instance list settles what exists: look there by
// the instance's id and by the unique label the creation request carried.
import type { CallOptions, Instance, ServiceApi } from './types';

/**
 * One read of the instance list: the instance with `id`, else the one carrying exactly
 * `label` (the newest, should the service somehow hold two), else undefined. A failed read
 * throws: it proves nothing either way.
 */
export async function locateCreation(api: ServiceApi, ref: { id?: number; label?: string }, o?: CallOptions): Promise<Instance | undefined> {
  if (ref.id === undefined && !ref.label) return undefined;
  const { instances } = await api.listInstances(o);
  let found: Instance | undefined;
  for (const i of instances) {
    if (ref.id !== undefined && i.id === ref.id) return i;
    if (ref.label && i.label === ref.label && (!found || i.id > found.id)) found = i;
  }
  return found;
}

/** The instance carrying exactly `label`, or undefined when the list does not show one. */
export async function reconcileCreation(api: ServiceApi, label: string, o?: CallOptions): Promise<Instance | undefined> {
  if (!label) return undefined;
  return locateCreation(api, { label }, o);
}
