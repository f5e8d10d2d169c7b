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

/** A creation's label is its member's label with a unique suffix ("<group>-<rank>-<suffix>"). */
export function isMemberLabel(member: string, creation: string): boolean {
  return creation === member || creation.startsWith(`${member}-`);
}

/**
 * Whether this in-flight rental is a member of a group being rented or given up (unwinding,
 * failed): the groups resume such members as one group, or watch them as late members of the
 * given-up group (src/groups/groupLate.ts); the plain in-flight watcher leaves them alone, so none
 * is adopted as a machine of its own.
 */
export function groupOwnsRental(state: Pick<KeyValueStore, 'get'>, creationLabel: string): boolean {
  const raw = state.get<unknown[]>(GROUPS_STATE_KEY);
  if (!Array.isArray(raw)) return false;
  return raw.some((g) => {
    const x = g as { status?: unknown; members?: unknown };
    if (!x || x.status === 'ready' || !Array.isArray(x.members)) return false;
    return (x.members as Array<{ label?: unknown }>).some((m) => m && typeof m.label === 'string' && isMemberLabel(m.label, creationLabel));
  });
}
