// The persisted groups (globalState gpuRental.groups): written before the overlay and the first
// member are rented, so a group is never untracked; a member's id is added as soon as its rental
// is known. A group leaves the records only when every member is destroyed (or never rented).
import type { KeyValueStore } from '../core/ports';
import { GROUPS_STATE_KEY } from '../core/stateKeys';
import { writeSerially } from '../core/serialWrites';

export interface GroupMember {
  rank: number;
  /** The creation's unique label (the in-flight record finds the rental by it until it has an id). */
  label: string;
  instanceId?: number;
  /** Its create may have gone out (set before the member's flow starts): a reload looks for it by its label. */
  sent?: boolean;
  dphTotal: number;
  /** Rank 0's address on the overlay, read on the machine (members' rows: their own). */
  overlayAddress?: string;
}

export interface GroupRecord {
  /** The group's name: the SSH aliases gpu-<name>-<rank> and the overlay network are named from it. */
  name: string;
  overlayName: string;
  overlayId?: number;
  clusterId: number;
  templatePath: string;
  count: number;
  gpusPerNode: number;
  members: GroupMember[];
  createdAt: number;
  /** renting: not all members run yet (or being unwound); ready: every member runs and knows the group; failed: a reload left it not whole and the user has not yet said to destroy it. */
  status: 'renting' | 'ready' | 'unwinding' | 'failed';
  masterPort: number;
}

function valid(r: unknown): r is GroupRecord {
  const x = r as Partial<GroupRecord> | null;
  return !!x && typeof x === 'object' && typeof x.name === 'string' && typeof x.overlayName === 'string' && Array.isArray(x.members);
}

export function readGroups(state: KeyValueStore): GroupRecord[] {
  const v = state.get<unknown[]>(GROUPS_STATE_KEY);
  return Array.isArray(v) ? v.filter(valid) : [];
}

const serially = writeSerially;

export function putGroup(state: KeyValueStore, g: GroupRecord): Promise<void> {
  return serially(state, () => state.update(GROUPS_STATE_KEY, [...readGroups(state).filter((x) => x.name !== g.name), g]));
}

/** Changes the named group, if it is still recorded. */
export function updateGroup(state: KeyValueStore, name: string, change: (g: GroupRecord) => GroupRecord): Promise<void> {
  return serially(state, () =>
    state.update(
      GROUPS_STATE_KEY,
      readGroups(state).map((g) => (g.name === name ? change(g) : g)),
    ),
  );
}

/** Changes one member of the named group, if both are still recorded. */
export function updateMember(state: KeyValueStore, name: string, rank: number, change: (m: GroupMember) => GroupMember): Promise<void> {
  return updateGroup(state, name, (g) => ({ ...g, members: g.members.map((m) => (m.rank === rank ? change(m) : m)) }));
}

export function removeGroup(state: KeyValueStore, name: string): Promise<void> {
  return serially(state, () =>
    state.update(
      GROUPS_STATE_KEY,
      readGroups(state).filter((g) => g.name !== name),
    ),
  );
}
