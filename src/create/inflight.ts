// The persisted in-flight rentals (globalState gpuRental.templates.inflight): written before the
// create request goes out, kept until the list has shown the instance settle or the user decided.
import type { KeyValueStore } from '../core/ports';
import type { SshOptions, SshOptionsByInstance } from '../ssh/sshTypes';
import { INFLIGHT_STATE_KEY, SSH_OPTIONS_STATE_KEY } from '../core/stateKeys';
import { writeSerially } from '../core/serialWrites';
import type { InflightCreation } from './flowTypes';

export { INFLIGHT_STATE_KEY };

function valid(r: unknown): r is InflightCreation {
  if (!r || typeof r !== 'object') return false;
  const x = r as Partial<InflightCreation>;
  return typeof x.instanceId === 'number' || (x.instanceId === undefined && typeof x.label === 'string' && x.label.length > 0);
}

export function readInflight(state: KeyValueStore): InflightCreation[] {
  const v = state.get<unknown[]>(INFLIGHT_STATE_KEY);
  return Array.isArray(v) ? v.filter(valid) : [];
}

/** The same rental: by id when both have one, else by the creation's unique label. */
function same(a: InflightCreation, b: { instanceId?: number; label?: string }): boolean {
  if (a.instanceId !== undefined && b.instanceId !== undefined) return a.instanceId === b.instanceId;
  return b.label !== undefined && a.label === b.label;
}

/** The records' writes, one after another per store (src/core/serialWrites.ts). */
const serially = writeSerially;

/** Adds or replaces the record of this rental (by id, else label); with an id, its SSH options too. */
export function putInflight(state: KeyValueStore, r: InflightCreation): Promise<void> {
  return serially(state, async () => {
    await state.update(INFLIGHT_STATE_KEY, [...readInflight(state).filter((x) => !same(x, r) && !(x.label === r.label)), r]);
    if (r.instanceId === undefined) return;
    const ssh = { ...(state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {}) };
    ssh[String(r.instanceId)] = r.ssh;
    await state.update(SSH_OPTIONS_STATE_KEY, ssh);
  });
}

/** The SSH options recorded with this instance's rental (they stay after its record settles). */
export function sshOptionsOf(state: KeyValueStore, id: number): SshOptions | undefined {
  return state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY)?.[String(id)];
}

/** Marks the rental as one the flow stopped waiting for: announced as late when it appears. */
export function markLate(state: KeyValueStore, ref: { instanceId?: number; label: string }): Promise<void> {
  return serially(state, () =>
    state.update(
      INFLIGHT_STATE_KEY,
      readInflight(state).map((x) => (same(x, ref) ? { ...x, late: true } : x)),
    ),
  );
}

/** A read showed the rental. Only an existing record is changed: a settled one is never brought back. */
export function markSeen(state: KeyValueStore, id: number): Promise<void> {
  return serially(state, async () => {
    const all = readInflight(state);
    if (!all.some((x) => x.instanceId === id && !x.seen)) return;
    await state.update(
      INFLIGHT_STATE_KEY,
      all.map((x) => (x.instanceId === id ? { ...x, seen: true } : x)),
    );
  });
}

export function removeInflight(state: KeyValueStore, id: number, forgetSsh = false): Promise<void> {
  return serially(state, async () => {
    await state.update(
      INFLIGHT_STATE_KEY,
      readInflight(state).filter((x) => x.instanceId !== id),
    );
    if (forgetSsh) {
      const ssh = { ...(state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {}) };
      delete ssh[String(id)];
      await state.update(SSH_OPTIONS_STATE_KEY, ssh);
    }
  });
}

/** A create the service refused outright (nothing was rented): its id-less record goes. */
export function removeInflightLabel(state: KeyValueStore, label: string): Promise<void> {
  return serially(state, () =>
    state.update(
      INFLIGHT_STATE_KEY,
      readInflight(state).filter((x) => !(x.instanceId === undefined && x.label === label)),
    ),
  );
}

/** A rental no longer watched (past the horizon): every record carrying its label goes. */
export function forgetInflight(state: KeyValueStore, label: string): Promise<void> {
  return serially(state, () =>
    state.update(
      INFLIGHT_STATE_KEY,
      readInflight(state).filter((x) => x.label !== label),
    ),
  );
}
