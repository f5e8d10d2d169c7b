// A reload during a group rental, against the simulator: the flow stops at its first wait (the
// window went away), and a new session resumes the members as one group. All of them run: the
// group is ready. One never starts: the group is failed, its machines stay (in the group record,
// so the Instances view shows them under the failed group) until the user says yes; only then are
// they destroyed. Each check counts the machines the simulator holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowSim, harness, simClock, useFlowSim, simInstances, virtualClock } from '../create/flowHarness';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import { readGroups } from '../../../src/groups/groupRecords';
import { resumeGroups } from '../../../src/groups/groupResume';
import { watchLateMembers } from '../../../src/groups/groupLate';
import { destroyGroup } from '../../../src/groups/groupActions';
import { groupOwnsRental } from '../../../src/core/groupIndex';
import { readInflight } from '../../../src/create/createFlow';
import { MemoryState } from '../../kit/state';

import { template, prompts } from './groupKit';

useFlowSim();

/** Runs the group flow until each of its 3 members first waits, then drops it (the reload); the state it left. */
async function interrupted(): Promise<MemoryState> {
  const state = new MemoryState();
  let hung = 0;
  let allHung!: () => void;
  const reloaded = new Promise<void>((r) => (allHung = r));
  const clock = virtualClock({ max: 200, hangAfter: 0, onHang: () => ++hung === 3 && allHung() });
  const h = harness({ state, clock });
  // Never settles (its waits hang, as under a reload); a failure before that would fail the test.
  runGroupFlow({ ...h.ports, prompts }, { template, templatePath: '.gpu/ddp.json', pollIntervalMs: 5000, maxWaitMs: 10 * 60_000 }).catch((e: unknown) =>
    assert.fail(`the interrupted flow threw: ${String(e)}`),
  );
  await reloaded;
  assert.equal(readGroups(state)[0]?.status, 'renting');
  assert.equal(readInflight(state).length, 3);
  return state;
}

function session(state: MemoryState, answer: boolean) {
  const asked: Array<{ ids: readonly number[]; problem: string }> = [];
  const h = harness({ state, clock: simClock() });
  const ports = { ...h.ports, confirmUnwind: async (_g: unknown, ids: readonly number[], problem: string) => (asked.push({ ids, problem }), answer) };
  return { h, ports, asked };
}

test('every member runs after the reload: the group is ready, each member in it, nothing left in flight', async () => {
  const state = await interrupted();
  assert.ok(
    readInflight(state).every((r) => groupOwnsRental(state, r.label)),
    'the plain watcher leaves these to the group',
  );
  assert.equal(groupOwnsRental(state, 'some-other-rental'), false);
  const { ports, asked } = session(state, true);
  const [r] = await resumeGroups(ports, { intervalMs: 5000, maxWaitMs: 10 * 60_000 });
  assert.equal(r?.outcome, 'ready', JSON.stringify(r));
  const g = readGroups(state)[0]!;
  assert.equal(g.status, 'ready');
  const live = (await simInstances())
    .filter((i) => i.actual_status === 'running')
    .map((i) => i.id)
    .sort();
  assert.deepEqual(g.members.map((m) => m.instanceId).sort(), live);
  assert.equal(live.length, 3);
  assert.deepEqual(readInflight(state), []);
  assert.equal(asked.length, 0);
});

test('a member never starts: the group is failed and kept as one until the user says yes; no destroys it all', async () => {
  const state = await interrupted();
  const ids = readInflight(state).map((r) => r.instanceId!);
  await flowSim.control.fault({ kind: 'instance_state', id: ids[1]!, state: 'exited' });
  const no = session(state, false);
  const [r] = await resumeGroups(no.ports, { intervalMs: 5000, maxWaitMs: 10 * 60_000 });
  assert.equal(r?.outcome, 'failed', JSON.stringify(r));
  assert.equal(no.asked.length, 1);
  assert.match(no.asked[0]!.problem, /not all 3 machines started after the reload \(rank 1\)/);
  assert.equal((await simInstances()).length, 3, 'nothing destroyed without a yes');
  const g = readGroups(state)[0]!;
  assert.equal(g.status, 'failed');
  assert.deepEqual(g.members.map((m) => m.instanceId).sort(), [...ids].sort(), 'every machine shown under the failed group');
  // A failed group is not resumed again by itself; the user's yes (Destroy Group, or the question again) destroys.
  assert.deepEqual(await resumeGroups(no.ports), []);
  const d = await destroyGroup({ api: no.h.api, log: no.h.log, state }, g);
  assert.equal(d.destroyed.length, 3);
  assert.equal((await simInstances()).length, 0);
  assert.deepEqual(readGroups(state), []);
});

test('the user says yes: every member and the network are destroyed', async () => {
  const state = await interrupted();
  const ids = readInflight(state).map((r) => r.instanceId!);
  await flowSim.control.fault({ kind: 'instance_state', id: ids[0]!, state: 'exited' });
  const yes = session(state, true);
  const [r] = await resumeGroups(yes.ports, { intervalMs: 5000, maxWaitMs: 10 * 60_000 });
  assert.equal(r?.outcome, 'destroyed', JSON.stringify(r));
  assert.deepEqual([...yes.asked[0]!.ids].sort(), [...ids].sort());
  assert.equal((await simInstances()).length, 0);
  assert.deepEqual(readGroups(state), []);
});

test('a member that settled just before the reload (its record gone, its id not yet in the group) is found by its label, never rented again', async () => {
  const state = await interrupted();
  const [first] = readInflight(state);
  const g = readGroups(state)[0]!;
  const rank = g.members.find((m) => m.label === first!.label)?.rank;
  assert.notEqual(rank, undefined, "the member's creation carries the member's own label");
  assert.ok(
    g.members.every((m) => m.sent && m.instanceId === undefined),
    'every member was sent; no id reached the group yet',
  );
  // As the create flow's settle does: the in-flight record goes once the member runs (the reload came before the group heard).
  const { removeInflight } = await import('../../../src/create/createFlow');
  await removeInflight(state, first!.instanceId!);
  const { ports, asked } = session(state, true);
  const [r] = await resumeGroups(ports, { intervalMs: 5000, maxWaitMs: 10 * 60_000 });
  assert.equal(r?.outcome, 'ready', JSON.stringify(r));
  assert.equal(asked.length, 0);
  const after = readGroups(state)[0]!;
  assert.equal(after.members[rank!]!.instanceId, first!.instanceId);
  assert.equal((await simInstances()).length, 3, 'no fourth machine');
  assert.deepEqual(readInflight(state), []);
});

test('a rental with no answer appears after the resumed group failed and was kept: it shows under the group, kept with it until the user destroys the group', async () => {
  // One create's answer is lost and its machine stays invisible for 15 minutes: the resume gives up on it first.
  await flowSim.control.fault({ kind: 'reset', path: '/api/v0/asks/', count: 1 });
  await flowSim.control.fault({ kind: 'hidden', seconds: 900, count: 1 });
  const state = await interrupted();
  const lost = readInflight(state).find((r) => r.instanceId === undefined)!;
  const no = session(state, false);
  const [r] = await resumeGroups(no.ports, { intervalMs: 5000, maxWaitMs: 2 * 60_000 });
  assert.equal(r?.outcome, 'failed', JSON.stringify(r));
  assert.equal(no.asked[0]?.ids.length, 2);
  assert.equal(readGroups(state)[0]?.status, 'failed');
  assert.ok(groupOwnsRental(state, lost.label), 'the plain in-flight watcher leaves it to its group');
  const out = await watchLateMembers(no.ports, { intervalMs: 30_000, maxWaitMs: 30 * 60_000 });
  assert.equal(out[0]?.outcome, 'kept', JSON.stringify(out));
  const g = readGroups(state)[0]!;
  const live = (await simInstances()).map((i) => i.id).sort();
  assert.equal(live.length, 3, 'nothing destroyed without a yes');
  assert.deepEqual(g.members.map((m) => m.instanceId).sort(), live, 'every machine under the group');
  assert.deepEqual(readInflight(state), []);
  const d = await destroyGroup({ api: no.h.api, log: no.h.log, state }, g);
  assert.equal(d.destroyed.length, 3);
  assert.equal((await simInstances()).length, 0);
});
