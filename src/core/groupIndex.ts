// Which instances belong to which group of machines (src/groups/ writes the records, under
// GROUPS_STATE_KEY): what the Instances view needs to show a group as one row with its members
// under it, without depending on the groups feature.
import type { KeyValueStore } from './ports';
import { GROUPS_STATE_KEY } from './stateKeys';

export interface GroupSummary {
  name: string;
  /** The members' instance ids, rank order (a member not rented yet has none). */
  instanceIds: number[];
}

export function readGroupIndex(state: Pick<KeyValueStore, 'get'>): GroupSummary[] {
  const raw = state.get<unknown[]>(GROUPS_STATE_KEY);
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((g) => {
    const x = g as { name?: unknown; members?: unknown };
    if (!x || typeof x.name !== 'string' || !Array.isArray(x.members)) return [];
    const instanceIds = (x.members as Array<{ instanceId?: unknown }>).flatMap((m) => (m && typeof m.instanceId === 'number' ? [m.instanceId] : []));
    return [{ name: x.name, instanceIds }];
  });
}
