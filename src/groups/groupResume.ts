// After a reload during a group rental: the members are resumed as a group, not as separate
// machines. The group record knows its members' creation labels, and the in-flight records (by
// label) carry their ids, so every member is watched again; the all-or-none rule still applies at
// the end. What differs from the live flow: the user is not watching, so a group that does not come
// up whole is destroyed only after the user's yes; until then its machines stay in the group
// record (shown as the failed group in the Instances view), never silently destroyed or forgotten.
import type { Instance } from '../api/types';
import { readInflight, resumeInflight, type ResumeResult } from '../create/createFlow';
import { logText, type CreateFlowPorts } from '../create/flowTypes';
import { readGroups, updateGroup, type GroupMember, type GroupRecord } from './groupRecords';
import { destroyGroup } from './groupActions';
import { GROUP_WAIT_MS, memberAliases } from './groupFlow';
import { putInflight, sshOptionsOf } from '../create/inflight';
import { reconcileAmbiguous } from '../create/pollUntilReady';
import { isMemberLabel } from '../core/groupIndex';

export interface GroupResumePorts extends Pick<CreateFlowPorts, 'api' | 'log' | 'clock' | 'ssh' | 'state' | 'instances' | 'reconcile'> {
  /** The group did not come up whole: destroy these machines (and the network)? Only a yes destroys. */
  confirmUnwind(group: GroupRecord, ids: readonly number[], problem: string): Promise<boolean>;
  /** As the group flow's: makes the running members ready to launch. */
  prepare?(group: GroupRecord, members: readonly Instance[]): Promise<GroupRecord>;
}

export type GroupResumeOutcome =
  | { name: string; outcome: 'ready'; ids: number[] }
  | { name: string; outcome: 'destroyed'; problem: string; destroyed: number[]; kept: number[] }
  /** The user said no (or was not asked: nothing to destroy): the machines stay, in the failed group. */
  | { name: string; outcome: 'failed'; problem: string; ids: number[] };

export interface GroupResumeOptions {
  intervalMs?: number;
  /** How long the members may still take; default: what is left of the group's time limit. */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

/** Every group a reload interrupted while renting, each resumed as one. */
export async function resumeGroups(ports: GroupResumePorts, opts: GroupResumeOptions = {}): Promise<GroupResumeOutcome[]> {
  const open = readGroups(ports.state).filter((g) => g.status === 'renting');
  return Promise.all(open.map((g) => resumeGroup(ports, g, opts)));
}

async function resumeGroup(ports: GroupResumePorts, g: GroupRecord, opts: GroupResumeOptions): Promise<GroupResumeOutcome> {
  const maxWaitMs = opts.maxWaitMs ?? Math.max(60_000, g.createdAt + GROUP_WAIT_MS - Date.now());
  ports.log.info(`group ${g.name}: resuming its ${g.count} members after a reload`);
  const wait = { maxWaitMs, ...(opts.intervalMs !== undefined ? { intervalMs: opts.intervalMs } : {}), ...(opts.signal ? { signal: opts.signal } : {}) };
  const results = await Promise.all(g.members.map((m) => resumeMember(ports, g, m, wait)));
  const byLabel = new Map<string, ResumeResult>(g.members.flatMap((m, i) => (results[i] ? [[m.label, results[i]] as const] : [])));
  // Every id known now goes into the group record at once: the members show under the group.
  const members = g.members.map((m) => ({ ...m, instanceId: m.instanceId ?? byLabel.get(m.label)?.instanceId }));
  const idOf = new Map(members.map((m) => [m.rank, m.instanceId]));
  await updateGroup(ports.state, g.name, (x) => ({
    ...x,
    members: x.members.map((m) => (idOf.get(m.rank) !== undefined ? { ...m, instanceId: idOf.get(m.rank) } : m)),
  }));
  const running = await runningMembers(ports, members, byLabel);
  const ids = members.flatMap((m) => (m.instanceId !== undefined ? [m.instanceId] : []));
  if (running.length === g.count) {
    let group: GroupRecord = { ...g, members: members.map((m, i) => ({ ...m, instanceId: running[i]!.id })), status: 'ready' };
    try {
      if (ports.prepare) group = { ...(await ports.prepare(group, running)), status: 'ready' };
      await updateGroup(ports.state, g.name, () => group);
      ports.log.info(`group ${g.name}: every member runs after the reload; the group is ready`);
      return { name: g.name, outcome: 'ready', ids };
    } catch (e) {
      ports.log.warn(`group ${g.name}: preparing the members failed: ${logText(e)}`);
      return failed(ports, { ...g, members }, ids, 'every machine runs, but the group could not be made ready');
    }
  }
  const missing = members.filter((m) => !running.some((i) => i.id === m.instanceId)).map((m) => `rank ${m.rank}`);
  return failed(ports, { ...g, members }, ids, `not all ${g.count} machines started after the reload (${missing.join(', ')})`);
}

type Wait = { maxWaitMs: number; intervalMs?: number; signal?: AbortSignal };

/**
 * One member watched again through its in-flight record (its label is the member's, or the member's
 * with a suffix in records of older versions). A member the flow had sent whose record is gone (it
 * ran or was created just before the reload, and its id had not reached the group record) is found
 * by its label first, as a lost create is: it is never rented again.
 */
async function resumeMember(ports: GroupResumePorts, g: GroupRecord, m: GroupMember, wait: Wait): Promise<ResumeResult | undefined> {
  let records = readInflight(ports.state).filter((r) => isMemberLabel(m.label, r.label));
  if (!records.length && m.instanceId === undefined && m.sent) {
    const found = await findSent(ports, g, m, wait);
    if (!found) return { label: m.label, outcome: 'timeout' };
    records = readInflight(ports.state).filter((r) => r.label === m.label);
  }
  if (!records.length) return undefined;
  return (await resumeInflight(ports, { ...wait, only: records.map((r) => r.label) })).at(-1);
}

/** Looks for a sent member by its label; its record goes back in flight either way (with its id once found: never untracked). */
async function findSent(ports: GroupResumePorts, g: GroupRecord, m: GroupMember, wait: Wait): Promise<boolean> {
  ports.log.info(`group ${g.name}: rank ${m.rank} was sent before the reload and has no record left; looking for "${m.label}"`);
  const rec = await reconcileAmbiguous(ports, m.label, wait.intervalMs ?? 10_000, {
    maxWaitMs: wait.maxWaitMs,
    ...(wait.signal ? { signal: wait.signal } : {}),
  });
  const id = 'found' in rec ? rec.found.id : undefined;
  await putInflight(ports.state, {
    ...(id !== undefined ? { instanceId: id } : { late: true }),
    label: m.label,
    templatePath: g.templatePath,
    ssh: (id !== undefined ? sshOptionsOf(ports.state, id) : undefined) ?? { groupAliases: memberAliases(g.name, m.rank) },
    targetState: 'running',
    startedAt: g.createdAt,
  });
  return id !== undefined;
}

/** The members that run now, rank order; a member whose flow had settled before the reload is read from the service. */
async function runningMembers(ports: GroupResumePorts, members: GroupRecord['members'], byLabel: Map<string, ResumeResult>): Promise<Instance[]> {
  const out: Instance[] = [];
  for (const m of members) {
    if (m.instanceId === undefined) continue;
    const r = byLabel.get(m.label);
    if (r && r.outcome !== 'ready') continue;
    // Just read running by the watch (a show costs 2 s of the key's pace): not read again.
    if (r?.instance) {
      out.push(r.instance);
      continue;
    }
    try {
      const inst = await ports.api.showInstance(m.instanceId);
      if ((inst.actual_status ?? inst.state) === 'running') out.push(inst);
    } catch (e) {
      ports.log.warn(`group: reading member ${m.instanceId} failed: ${logText(e)}`);
    }
  }
  return out;
}

async function failed(ports: GroupResumePorts, g: GroupRecord, ids: number[], problem: string): Promise<GroupResumeOutcome> {
  await updateGroup(ports.state, g.name, (x) => ({ ...x, status: 'failed' }));
  ports.log.warn(`group ${g.name}: ${problem}; instances ${ids.join(', ') || 'none'} kept until the user decides`);
  if (!ids.length || !(await ports.confirmUnwind(g, ids, problem))) return { name: g.name, outcome: 'failed', problem, ids };
  const d = await destroyGroup(ports, g);
  return { name: g.name, outcome: 'destroyed', problem, ...d };
}
