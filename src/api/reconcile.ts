// After an ambiguous creation (timeout/reset after sending), find out whether the machine
// was rented by looking for the unique label the caller put on the request.
import type { CallOptions, Instance, ServiceApi } from './types';

/**
 * Lists instances and returns the one carrying exactly `label` (the newest, should the
 * service somehow hold two), or undefined when the creation did not happen.
 */
export async function reconcileCreation(api: ServiceApi, label: string, o?: CallOptions): Promise<Instance | undefined> {
  if (!label) return undefined;
  const { instances } = await api.listInstances(o);
  let found: Instance | undefined;
  for (const i of instances) if (i.label === label && (!found || i.id > found.id)) found = i;
  return found;
}
