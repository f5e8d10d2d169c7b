// A group member's idle guard: caps apply to the group (maxSpend at the group's total $/h, the same
// maxHours), the group part of the watchdog ships only to group members, the group's one Rent
// confirmation says what the guard does to the group, and what VS Code reads of a member's state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import {
  WATCHDOG_SCRIPT,
  capOf,
  composeOnstart,
  groupGuard,
  guardEnv,
  guardSummary,
  minifiedWatchdog,
  partsOf,
  resolveGuardPlan,
  type GuardRequest,
} from '../../../src/guard/plan';
import { installedGuard } from '../../../src/guard/installed';
import { readWatchdogState, type WatchdogState } from '../../../src/guard/watchdogState';
import { activity, readings } from '../../../src/guard/statusText';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import type { Template } from '../../../src/create/templateSchema';
import { harness, simInstances, useFlowSim } from '../create/flowHarness';

const request = (block: Parameters<typeof resolveGuardPlan>[0]): GuardRequest => ({
  plan: resolveGuardPlan(block)!,
  explicit: true,
  apiUrl: 'https://console.vast.ai',
});

test('a group of 3 at $1/h each with maxSpend $3: each member stops after 1 h (the group has spent $3)', () => {
  const member = groupGuard(request({ maxSpend: 3 }), 3);
  assert.deepEqual(capOf(member.plan, 1), { seconds: 3600, why: 'maxSpend' });
  assert.ok(guardEnv(member.plan, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).some(([k, v]) => k === 'GPU_GUARD_CAP_SECONDS' && v === '3600'));
  // Alone, the same machine would run 3 h; maxHours is the same for every member, whatever it costs.
  assert.deepEqual(capOf(request({ maxSpend: 3 }).plan, 1), { seconds: 10800, why: 'maxSpend' });
  assert.deepEqual(capOf(groupGuard(request({ maxHours: 2, maxSpend: 30 }), 3).plan, 0.4), { seconds: 7200, why: 'maxHours' });
});

test('only a group member carries the group part of the watchdog (a single machine stays small)', () => {
  const single = request({});
  const member = groupGuard(single, 2);
  assert.deepEqual(partsOf(single.plan), []);
  assert.deepEqual(partsOf(member.plan), ['group']);
  assert.doesNotMatch(minifiedWatchdog(WATCHDOG_SCRIPT, []), /http\.server|group\(\)|PEER_PORT/);
  const shipped = (r: GuardRequest) => {
    const c = composeOnstart(undefined, r.plan, { apiUrl: r.apiUrl, dphTotal: 1 });
    return gunzipSync(Buffer.from(c.env!.GPU_GUARD_SCRIPT!, 'base64')).toString('utf8');
  };
  assert.match(shipped(member), /python3 -m http\.server --bind "\$ME"/);
  assert.match(shipped(member), /NODE_RANK/, 'the name it reads from group.env is not renamed');
  assert.doesNotMatch(shipped(single), /http\.server/);
});

test("the Rent confirmation says the guard stops the group, and the caps are the group's", () => {
  const line = guardSummary(groupGuard(request({ maxSpend: 3, maxHours: 5 }), 3), 3);
  assert.match(line, /^Idle guard: stops the group when every member has been idle for 30 minutes/);
  assert.match(line, /caps 5 h \/ \$3 for the whole group \(at the latest after 1\.0 h\)/);
  assert.match(guardSummary(request({}), 1), /^Idle guard: stops it after 30 idle minutes/);
});

const state = (busy: string, group: string | undefined): WatchdogState => {
  const a = [2, 12, 1000, 1600, 'stop', 1800, 'ok', 0, 0, 0, null, null, busy, 1500, 0, 'cap', 0, 0, '', '', null, 60];
  return readWatchdogState(group === undefined ? a : [...a, group])!;
};

test("a member's state: its group word, and a member idle but held by the group does not act", () => {
  const held = state('group: rank 2 busy', 'rank 0 of 3');
  assert.equal(held.group, 'rank 0 of 3');
  assert.equal(held.busyReason, 'group: rank 2 busy');
  assert.equal(held.idleSince, 1500);
  assert.equal(held.actAt, null, 'no warning of a stop that will not come');
  const r = { state: held, readAt: 1_600_000, remoteNow: 1600 };
  assert.match(activity(r, 1_600_000), /^watching · idle here 1 of 30 min · the group keeps running \(rank 2 busy\)$/);
  assert.match(readings(r, 1_600_000), / · group rank 0 of 3, stops when every member is idle · /);
  const alone = state('', 'cannot share its state (no python3)');
  assert.equal(alone.actAt, 3300);
  assert.match(
    readings({ state: alone, readAt: 1_600_000, remoteNow: 1600 }, 1_600_000),
    /group: cannot share its state \(no python3\), so it watches this member alone/,
  );
  // A single machine's state (22 fields) reads as before, without a group.
  assert.equal(state('', undefined).group, null);
  assert.equal(readWatchdogState([2, ...Array(23).fill(0)]), undefined, 'a 24-field array is not a state');
});

useFlowSim();

test('the group flow gives every member the group part and a cap at the group total; the confirmation says so', async () => {
  const t: Template = {
    name: 'ddp',
    count: 2,
    offer: { gpuNames: ['RTX 4090'], numGpus: 1 },
    instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', disk: 10 },
    guard: { maxSpend: 2 },
  };
  const h = harness();
  const shown: string[] = [];
  const sent: Array<Record<string, string> | undefined> = [];
  const api = {
    ...h.api,
    createInstance: (id: number, req: { env?: Record<string, string> }, o?: object) => (sent.push(req.env), h.api.createInstance(id, req as never, o as never)),
  };
  const prompts = {
    pickCluster: async <T>(c: readonly T[]) => c[0],
    confirmGroup: async (_c: unknown, _t: unknown, _w: number, guard?: string) => (shown.push(guard ?? ''), true),
  };
  const r = await runGroupFlow(
    { ...h.ports, api: api as typeof h.api, prompts },
    { template: t, templatePath: '.gpu/ddp.json', guard: request({ maxSpend: 2 }), maxWaitMs: 600_000 },
  );
  assert.equal(r.outcome, 'ready', r.message);
  if (r.outcome !== 'ready') return;
  const total = r.group.members.reduce((s, m) => s + m.dphTotal, 0);
  const want = Math.floor((2 / total) * 3600);
  const live = await simInstances();
  assert.equal(live.length, 2);
  for (const i of live) assert.equal(installedGuard(i.onstart)?.capSeconds, want, 'each member stops when the group has spent maxSpend');
  assert.equal(sent.length, 2);
  for (const env of sent) assert.match(gunzipSync(Buffer.from(env!.GPU_GUARD_SCRIPT!, 'base64')).toString('utf8'), /http\.server/);
  assert.match(shown[0]!, /^Idle guard: stops the group when every member has been idle/);
  await Promise.all(live.map((i) => h.api.destroyInstance(i.id)));
});
