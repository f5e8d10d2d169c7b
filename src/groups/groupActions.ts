// What acts on a whole group: destroy every member (and the network), stop or start every member.
// A member is destroyed only when the service says so; one that could not be is named and stays
// tracked (the group record keeps it), never taken as gone.
import type { Logger, ServiceApi } from '../api/types';
import type { InstanceStore, KeyValueStore } from '../core/ports';
import { logText } from '../create/flowTypes';
import { destroyCreated } from '../create/failedBoot';
import { readGroups, removeGroup, updateGroup, type GroupMember, type GroupRecord } from './groupRecords';
import { readInflight } from '../create/inflight';
import type { InflightCreation } from '../create/flowTypes';
import { isMemberLabel } from '../core/groupIndex';
import { deleteNetwork } from './overlayNetwork';
import { BULK_IDS_MAX } from '../api/overlayApi';
import { isApiError } from '../api/errors';

export interface GroupActionPorts {
  api: ServiceApi;
  log: Logger;
  state: KeyValueStore;
  instances?: Pick<InstanceStore, 'upsert' | 'watch' | 'remove'>;
}

/** Destroys one member, tried twice (a 5xx or a lost answer); true once the service said it is done. */
export async function destroyMember(p: GroupActionPorts, id: number): Promise<boolean> {
  return (await destroyCreated(p, id)) || (await destroyCreated(p, id));
}

/** Destroys every member of the group that has an id, then the network; the ids that are still there. */
export async function destroyGroup(p: GroupActionPorts, g: GroupRecord): Promise<{ destroyed: number[]; kept: number[] }> {
  await updateGroup(p.state, g.name, (x) => ({ ...x, status: 'unwinding' }));
  const ids = g.members.flatMap((m) => (m.instanceId !== undefined ? [m.instanceId] : []));
  const done = await Promise.all(ids.map((id) => destroyMember(p, id)));
  const destroyed = ids.filter((_, i) => done[i]);
  const kept = ids.filter((_, i) => !done[i]);
  await deleteNetwork(p, { ...(g.overlayId !== undefined ? { overlayId: g.overlayId } : {}), name: g.overlayName });
  await dropGone(p.state, g.name, destroyed);
  return { destroyed, kept };
}

/** A member without an id whose rental is still in flight (its create had no answer): it may still appear. */
export function inFlight(m: GroupMember, records: readonly InflightCreation[]): boolean {
  return m.instanceId === undefined && records.some((r) => isMemberLabel(m.label, r.label));
}

/**
 * After destroying: the group keeps the members that still exist or may (an id not in `gone`, a
 * rental in flight: src/groups/groupLate.ts puts it under the group when it appears), and goes
 * with the last of them.
 */
export async function dropGone(state: KeyValueStore, name: string, gone: readonly number[]): Promise<void> {
  const records = readInflight(state);
  await updateGroup(state, name, (x) => ({
    ...x,
    members: x.members.filter((m) => (m.instanceId !== undefined ? !gone.includes(m.instanceId) : inFlight(m, records))),
  }));
  if (!readGroups(state).find((x) => x.name === name)?.members.length) await removeGroup(state, name);
}

/**
 * Stops or starts every member: one bulk call per 64 ids where the service has it; member by
 * member when it answers otherwise (the seed's 404, or an id it no longer lists: each member then
 * gets its own answer). Setting a state twice is harmless, so a failed bulk call is never a lost
 * change. The ids the service refused (each named in the log).
 */
export async function setGroupState(p: GroupActionPorts, g: GroupRecord, state: 'running' | 'stopped'): Promise<number[]> {
  const ids = g.members.flatMap((m) => (m.instanceId !== undefined ? [m.instanceId] : []));
  const doing = state === 'stopped' ? 'stopping' : 'starting';
  const chunks: number[][] = [];
  for (let k = 0; k < ids.length; k += BULK_IDS_MAX) chunks.push(ids.slice(k, k + BULK_IDS_MAX));
  const failed = await Promise.all(
    chunks.map(async (chunk) => {
      try {
        await p.api.setInstancesState(chunk, state);
        return [];
      } catch (e) {
        const seed = isApiError(e) && e.kind === 'http' && e.status === 404;
        p.log[seed ? 'info' : 'warn'](`group ${g.name}: ${doing} instances ${chunk.join(', ')} in one call failed (${logText(e)}); one by one instead`);
        return oneByOne(p, g, chunk, state);
      }
    }),
  );
  return failed.flat();
}

async function oneByOne(p: GroupActionPorts, g: GroupRecord, ids: readonly number[], state: 'running' | 'stopped'): Promise<number[]> {
  const failed: number[] = [];
  await Promise.all(
    ids.map(async (id) => {
      try {
        await p.api.setInstanceState(id, state);
      } catch (e) {
        failed.push(id);
        p.log.warn(`group ${g.name}: ${state === 'stopped' ? 'stopping' : 'starting'} instance ${id} failed: ${logText(e)}`);
      }
    }),
  );
  return failed;
}
