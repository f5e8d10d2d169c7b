// A member whose rental the service never answered, of a group that was given up (the flow's
// all-or-none unwind, Destroy Group, or a reload's resume that found the group not whole): watched
// by its label until the list shows it, then put under its group at once (the group's row stays
// while any member exists), never adopted as a machine of its own.
//
// What then happens to it is what would have happened had it answered before the group gave up:
// - the group is unwinding (the user agreed to "all or none" with the click, or said Destroy Group):
//   it is destroyed at once, as the flow's unwind destroys every member it knows of;
// - the group failed after a reload and the user said Keep (or was not asked: nothing was known to
//   destroy): it stays under the group's row, billing, until the user destroys the group there.
import type { Instance } from '../api/types';
import type { CreateFlowPorts, InflightCreation } from '../create/flowTypes';
import { forgetInflight, putInflight, readInflight, removeInflight } from '../create/inflight';
import { reconcileAmbiguous } from '../create/pollUntilReady';
import { INFLIGHT_HORIZON_MS } from '../create/resumeInflight';
import { isMemberLabel } from '../core/groupIndex';
import { destroyMember, dropGone, inFlight, type GroupActionPorts } from './groupActions';
import { deleteNetwork } from './overlayNetwork';
import { readGroups, updateMember, type GroupMember, type GroupRecord } from './groupRecords';

export type LateMemberPorts = GroupActionPorts & Pick<CreateFlowPorts, 'clock' | 'reconcile'>;

export type LateMember =
  /** It appeared in an unwinding group and was destroyed. */
  | { group: string; rank: number; outcome: 'destroyed'; instance: Instance }
  /** It appeared and stays under its group: the group failed and was kept, or the destroy failed (`destroyFailed`). */
  | { group: string; rank: number; outcome: 'kept'; instance: Instance; destroyFailed?: boolean }
  /** Not shown within the wait: still in flight, watched again at the next start. */
  | { group: string; rank: number; outcome: 'unseen' };

export interface LateMemberOptions {
  intervalMs?: number;
  /** Default one hour, as the in-flight watcher's. */
  maxWaitMs?: number;
  signal?: AbortSignal;
  /** Only the rentals with these labels (default: every late member). */
  only?: readonly string[];
  /** Each member as it settles (appeared: destroyed or kept), for the notice. */
  onSettled?(group: GroupRecord, m: Extract<LateMember, { instance: Instance }>): void;
}

const GIVEN_UP: ReadonlyArray<GroupRecord['status']> = ['unwinding', 'failed'];

/** The members of given-up groups whose rental is still in flight without an id in the group record. */
export function lateMembers(state: GroupActionPorts['state']): Array<{ group: GroupRecord; member: GroupMember; record: InflightCreation }> {
  const inflight = readInflight(state);
  return readGroups(state)
    .filter((g) => GIVEN_UP.includes(g.status))
    .flatMap((group) =>
      group.members
        .filter((m) => inFlight(m, inflight))
        .map((member) => ({ group, member, record: inflight.find((r) => isMemberLabel(member.label, r.label))! })),
    );
}

/** Watches every late member of a given-up group (in parallel) until it appears or the wait ends. */
export async function watchLateMembers(ports: LateMemberPorts, opts: LateMemberOptions = {}): Promise<LateMember[]> {
  return Promise.all(
    lateMembers(ports.state)
      .filter((x) => !opts.only || opts.only.includes(x.record.label))
      .map((x) => watchOne(ports, opts, x.group, x.member, x.record)),
  );
}

async function watchOne(ports: LateMemberPorts, opts: LateMemberOptions, g: GroupRecord, m: GroupMember, r: InflightCreation): Promise<LateMember> {
  const at = { group: g.name, rank: m.rank };
  ports.log.info(`group ${g.name}: watching for rank ${m.rank} ("${r.label}"), whose rental had no answer when the group was given up`);
  const rec = await reconcileAmbiguous(ports, r.label, opts.intervalMs ?? 10_000, {
    maxWaitMs: opts.maxWaitMs ?? 60 * 60_000,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!('found' in rec)) {
    if (!('aborted' in rec) && Date.now() - r.startedAt >= INFLIGHT_HORIZON_MS) await forget(ports, g, m, r);
    return { ...at, outcome: 'unseen' };
  }
  const inst = rec.found;
  // Under its group first (then its row appears there), and in flight with its id until settled here.
  await updateMember(ports.state, g.name, m.rank, (x) => ({ ...x, instanceId: inst.id }));
  await putInflight(ports.state, { ...r, instanceId: inst.id, late: true });
  ports.instances?.upsert(inst);
  const now = readGroups(ports.state).find((x) => x.name === g.name) ?? g;
  const settled = await settle(ports, now, m, inst);
  opts.onSettled?.(now, settled);
  return settled;
}

async function settle(ports: LateMemberPorts, g: GroupRecord, m: GroupMember, inst: Instance): Promise<Extract<LateMember, { instance: Instance }>> {
  const at = { group: g.name, rank: m.rank, instance: inst };
  if (g.status !== 'unwinding') {
    ports.log.warn(`group ${g.name}: rank ${m.rank} appeared late as instance ${inst.id}; it stays under the group (${g.status}) until you destroy it`);
    await removeInflight(ports.state, inst.id);
    return { ...at, outcome: 'kept' };
  }
  if (!(await destroyMember(ports, inst.id))) {
    ports.log.warn(`group ${g.name}: rank ${m.rank} appeared late as instance ${inst.id} and could not be destroyed; it stays under the group`);
    await removeInflight(ports.state, inst.id);
    return { ...at, outcome: 'kept', destroyFailed: true };
  }
  ports.log.info(`group ${g.name}: rank ${m.rank} appeared late as instance ${inst.id} and was destroyed (all or none)`);
  await dropGone(ports.state, g.name, [inst.id]);
  // Its last member gone, the group's network goes too (again: the unwind's delete may have failed, and a deleted one is only a logged 404).
  if (!readGroups(ports.state).some((x) => x.name === g.name))
    await deleteNetwork(ports, { ...(g.overlayId !== undefined ? { overlayId: g.overlayId } : {}), name: g.overlayName });
  return { ...at, outcome: 'destroyed' };
}

/** Past the in-flight horizon: no longer watched (logged), and no longer a member of the group. */
async function forget(ports: LateMemberPorts, g: GroupRecord, m: GroupMember, r: InflightCreation): Promise<void> {
  await forgetInflight(ports.state, r.label);
  ports.log.warn(`group ${g.name}: rank ${m.rank} ("${r.label}") has not appeared in a day; no longer watching it`);
  await dropGone(ports.state, g.name, []);
}
