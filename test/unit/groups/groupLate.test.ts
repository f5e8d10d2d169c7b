// A member whose rental the service never answered, appearing only after its group was given up
// (src/groups/groupLate.ts), against the simulator: it is the group's (the plain in-flight watcher
// leaves it alone), it shows under the group's row as soon as it appears, and the group's rule
// holds: an unwinding group (all or none agreed with the click) destroys it at once. Each check
// counts the machines the simulator holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowSim, harness, useFlowSim, simInstances } from '../create/flowHarness';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import { readGroups } from '../../../src/groups/groupRecords';
import { watchLateMembers } from '../../../src/groups/groupLate';
import { groupOwnsRental, readGroupIndex } from '../../../src/core/groupIndex';
import { readInflight } from '../../../src/create/createFlow';

import { template, prompts, overlays } from './groupKit';

useFlowSim();

test('the flow gives up while a rental had no answer; it appears later: under its group at once, then destroyed (all or none), nothing left', async () => {
  // One create's answer is lost and its machine stays invisible for 15 minutes: the group gives up before.
  await flowSim.control.fault({ kind: 'reset', path: '/api/v0/asks/', count: 1 });
  await flowSim.control.fault({ kind: 'hidden', seconds: 900, count: 1 });
  // The service removes the machines on a deleted network: its first delete fails (a 503), so the late one outlives it.
  let deletes = 0;
  const h = harness({
    wrap: (api) => ({
      ...api,
      deleteOverlay: async (ref) => {
        if (deletes++ === 0) await flowSim.control.fault({ kind: 'http_error', status: 503, path: '/api/v0/overlay/', count: 1 });
        return api.deleteOverlay(ref);
      },
    }),
  });
  const r = await runGroupFlow({ ...h.ports, prompts }, { template, templatePath: '.gpu/ddp.json', pollIntervalMs: 5000, maxWaitMs: 10 * 60_000 });
  assert.equal(r.outcome, 'failed', r.message);
  if (r.outcome !== 'failed') return;
  assert.equal(r.unknown.length, 1, r.message);
  assert.equal((await simInstances()).length, 0, 'the list does not show it yet');
  const [late] = readInflight(h.state);
  assert.ok(late && late.instanceId === undefined);
  const g = readGroups(h.state)[0];
  assert.equal(g?.status, 'unwinding', 'the group stays while a member may still appear');
  assert.deepEqual(
    g.members.map((m) => m.label),
    [late.label],
  );
  assert.ok(groupOwnsRental(h.state, late.label), 'the plain in-flight watcher leaves it to its group (never a machine of its own)');

  const underGroup: boolean[] = [];
  const ports = {
    ...h.ports,
    instances: {
      upsert: (i: { id: number }) => void underGroup.push(readGroupIndex(h.state).some((x) => x.name === g.name && x.instanceIds.includes(i.id))),
      watch: () => undefined,
      remove: () => undefined,
    },
  };
  const out = await watchLateMembers(ports, { intervalMs: 30_000, maxWaitMs: 30 * 60_000 });
  assert.equal(out.length, 1);
  assert.equal(out[0]!.outcome, 'destroyed', JSON.stringify(out));
  assert.deepEqual(underGroup, [true], 'its row appears under the group');
  assert.equal((await simInstances()).length, 0, 'nothing left');
  assert.deepEqual(readGroups(h.state), []);
  assert.deepEqual(readInflight(h.state), []);
  assert.equal(deletes, 2, 'the network is deleted again with its last member');
  assert.deepEqual(await overlays(), []);
});
