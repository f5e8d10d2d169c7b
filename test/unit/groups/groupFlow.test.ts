// The group flow against the simulator (real HTTP, the today era): a group is N running machines
// on one overlay, or none. A member that fails while starting, or never starts in time, makes the
// group unwind: every member that exists is destroyed and the network deleted; a refused network
// rents nothing. Each check counts the machines the simulator holds, not what the flow says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowSim, harness, useFlowSim, simInstances } from '../create/flowHarness';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import { readGroups } from '../../../src/groups/groupRecords';
import { destroyGroup } from '../../../src/groups/groupActions';
import { readInflight } from '../../../src/create/createFlow';

import { template, prompts, overlays } from './groupKit';

useFlowSim();

function run(over: Partial<Parameters<typeof runGroupFlow>[1]> = {}) {
  const h = harness();
  return {
    h,
    result: runGroupFlow({ ...h.ports, prompts }, { template, templatePath: '.gpu/ddp.json', pollIntervalMs: 5000, maxWaitMs: 10 * 60_000, ...over }),
  };
}

test('three members run on one overlay in one cluster; the group is recorded with every id; Destroy Group leaves nothing', async () => {
  const { h, result } = run();
  const r = await result;
  assert.equal(r.outcome, 'ready', r.message);
  if (r.outcome !== 'ready') return;
  const live = (await simInstances()).filter((i) => i.actual_status === 'running');
  assert.equal(live.length, 3);
  const [ov] = await overlays();
  assert.deepEqual([...ov!.instances].sort(), r.instances.map((i) => i.id).sort());
  assert.equal(ov!.name, r.group.overlayName);
  const g = readGroups(h.state)[0]!;
  assert.deepEqual(
    g.members.map((m) => m.instanceId),
    r.instances.map((i) => i.id),
  );
  assert.match(r.message, /\$\d+\.\d\d\/h in total/);
  // Each member's SSH entry carries its group host names.
  assert.deepEqual(h.sshWrites.map((w) => w.ssh.groupAliases).sort(), [[`gpu-${g.name}-0`, `gpu-${g.name}`], [`gpu-${g.name}-1`], [`gpu-${g.name}-2`]].sort());
  const d = await destroyGroup({ api: h.api, log: h.log, state: h.state }, g);
  assert.equal(d.destroyed.length, 3);
  assert.deepEqual(d.kept, []);
  assert.equal((await simInstances()).length, 0);
  assert.deepEqual(await overlays(), []);
  assert.deepEqual(readGroups(h.state), []);
});

test('one member fails while starting: the others are destroyed, the network deleted, nothing left or in flight', async () => {
  await flowSim.control.fault({ kind: 'boot', mode: 'fail', skip: 1 });
  const { h, result } = run();
  const r = await result;
  assert.equal(r.outcome, 'failed', r.message);
  if (r.outcome !== 'failed') return;
  assert.match(r.message, /not all 3 machines started \(rank \d: instance \d+ became "exited" while starting\)/);
  assert.equal(r.destroyed.length, 3, r.message);
  assert.equal((await simInstances()).length, 0, 'a machine is left');
  assert.deepEqual(await overlays(), []);
  assert.deepEqual(readInflight(h.state), []);
  assert.deepEqual(readGroups(h.state), []);
});

test('one member never starts: at the time limit the group unwinds (never N+1 rented, never one left)', async () => {
  await flowSim.control.fault({ kind: 'boot', mode: 'never', skip: 2 });
  const { result } = run({ maxWaitMs: 3 * 60_000 });
  const r = await result;
  assert.equal(r.outcome, 'failed', r.message);
  const puts = (await flowSim.control.requests()).filter((q) => q.method === 'PUT' && q.path.includes('/asks/')).length;
  assert.equal(puts, 3, 'one rental per member');
  assert.equal((await simInstances()).length, 0);
});

test('no cluster fits the count, or the network is refused: nothing is rented, and the message says why', async () => {
  const tooMany = await run({ template: { ...template, count: 64 } }).result;
  assert.equal(tooMany.outcome, 'nothing');
  assert.match(tooMany.message, /No physical cluster has 64 machines matching template "ddp"/);
  assert.equal((await simInstances()).length, 0);
});
