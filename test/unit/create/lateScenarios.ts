// Late machines: the simulator hides a new instance from show and list for a while (a lagging
// replica), answers storms of errors, or loses the create's answer, and one click must end with
// exactly one machine, tracked. Each scenario runs the create flow, then (as a reload, a restart
// or the 'unknown' answer does in VS Code) the in-flight watcher, on the same globalState.
// moneyLate.test.ts runs them all as one sweep; lateMachine.test.ts checks some in more detail.
import assert from 'node:assert/strict';
import type { SimFault } from '../../../src/sim/control';
import {
  readInflight,
  resumeInflight,
  runCreateFlow,
  type CreateFlowResult,
  type FlowPrompts,
  type NotFoundAnswer,
  type ResumeResult,
} from '../../../src/create/createFlow';
import { flowSim, harness, puts, template, type Harness } from './flowHarness';

const SHOW = '/api/v0/instances/2';
const LIST_V0 = '/api/v0/instances';
const LIST_V1 = '/api/v1/instances';
const CREATE = '/api/v0/asks/';

export interface LateScenario {
  name: string;
  faults: SimFault[];
  /** The client's timeout (a slow create answer beyond it is lost). */
  timeoutMs?: number;
  /** confirm: false (scripted) unless answers are given: then interactive, answering "not found" in turn. */
  answers?: NotFoundAnswer[];
  /** The window reloads (the flow's host stops) once its clock reaches this. */
  reloadAtMs?: number;
}

const storm = (status: number, count: number): SimFault[] => [
  { kind: 'http_error', status, path: SHOW, count },
  { kind: 'http_error', status, path: LIST_V0, exact: true, count },
  { kind: 'http_error', status, path: LIST_V1, exact: true, count },
];

export const LATE_SCENARIOS: LateScenario[] = [
  { name: 'invisible for 90 s, scripted', faults: [{ kind: 'hidden', seconds: 90 }] },
  { name: 'invisible for 90 s, interactive: keep waiting', faults: [{ kind: 'hidden', seconds: 90 }], answers: ['wait'] },
  { name: 'invisible for 5 min, scripted', faults: [{ kind: 'hidden', seconds: 300 }] },
  { name: 'invisible for 5 min, interactive: wait, then stop', faults: [{ kind: 'hidden', seconds: 300 }], answers: ['wait', 'stop'] },
  { name: 'invisible for 30 min, scripted', faults: [{ kind: 'hidden', seconds: 1800 }] },
  { name: 'invisible for 30 min, interactive: stop', faults: [{ kind: 'hidden', seconds: 1800 }], answers: ['stop'] },
  {
    name: 'invisible for 5 min, interactive: keep waiting, the window reloads after 2 min',
    faults: [{ kind: 'hidden', seconds: 300 }],
    answers: ['wait', 'wait', 'wait'],
    reloadAtMs: 120_000,
  },
  { name: 'invisible for 90 s, the window reloads after 30 s', faults: [{ kind: 'hidden', seconds: 90 }], reloadAtMs: 30_000 },
  ...[404, 410, 429, 500, 503].map((status): LateScenario => ({
    name: `HTTP ${status} storm on show and list while invisible for 90 s`,
    faults: [{ kind: 'hidden', seconds: 90 }, ...storm(status, 12)],
  })),
  {
    name: 'the create answer lost (reset), invisible for 90 s',
    faults: [
      { kind: 'reset', path: CREATE, count: 1 },
      { kind: 'hidden', seconds: 90 },
    ],
  },
  {
    name: 'the create answer lost (timeout), invisible for 5 min',
    faults: [
      { kind: 'slow', ms: 700, path: CREATE, count: 1 },
      { kind: 'hidden', seconds: 300 },
    ],
    timeoutMs: 300,
  },
  {
    name: 'the create answer lost (reset), invisible for 5 min, interactive: wait, stop',
    faults: [
      { kind: 'reset', path: CREATE, count: 1 },
      { kind: 'hidden', seconds: 300 },
    ],
    answers: ['wait', 'stop'],
  },
];

/** Every instance the simulator holds, visible in reads or not. */
export async function held(): Promise<number[]> {
  const res = await fetch(`${flowSim.sim.url}/_sim/state`);
  const body = (await res.json()) as { instances: Array<{ id: number }> };
  return body.instances.map((i) => i.id);
}

export interface LateRun {
  h: Harness;
  /** The flow's result; undefined when the window reloaded under it. */
  result: CreateFlowResult | undefined;
  asked: number;
  resumed: ResumeResult[];
  adopted: number[];
  watcher: Harness;
}

/** Runs one scenario to its end and checks the invariant: exactly one machine, tracked, nothing left in flight. */
export async function runLateScenario(s: LateScenario): Promise<LateRun> {
  await flowSim.control.reset();
  for (const f of s.faults) await flowSim.control.fault(f);
  let asked = 0;
  const prompts: Partial<FlowPrompts> = { keepOrDestroy: async () => 'keep', notFound: async () => s.answers?.[asked++] ?? 'stop' };
  const h = harness({ timeoutMs: s.timeoutMs ?? 5000, prompts });
  let result: CreateFlowResult | undefined;
  const input = { template, templatePath: '.gpu/t.json', ...(s.answers ? {} : { confirm: false }) };
  if (s.reloadAtMs !== undefined) {
    // The extension host goes away: the flow's next sleep past the reload never wakes.
    const reloadAt = s.reloadAtMs;
    const sleep = h.clock.sleep;
    const stopped = new Promise<void>((resolve) => {
      h.ports.clock = { ...h.clock, sleep: (ms, sig) => (h.clock.now() + ms > reloadAt ? (resolve(), new Promise<void>(() => undefined)) : sleep(ms, sig)) };
    });
    await Promise.race([stopped, runCreateFlow(h.ports, input).then((r) => (result = r))]);
    assert.equal(result, undefined, `${s.name}: the flow ended before the reload: ${JSON.stringify(result)}`);
    assert.equal(readInflight(h.state).length, 1, `${s.name}: the rental is in flight when the window reloads`);
  } else {
    result = await runCreateFlow(h.ports, input);
  }
  // A slow create answer is logged by the simulator only when it is finally sent.
  const slow = Math.max(0, ...s.faults.map((f) => (f.kind === 'slow' ? f.ms : 0)));
  if (slow) await new Promise((resolve) => setTimeout(resolve, slow + 100));
  assert.equal(await puts(), 1, `${s.name}: one create request for one click (${JSON.stringify(result)})`);
  assert.notEqual(result?.outcome, 'failed', `${s.name}: ${JSON.stringify(result)}`);
  // The watcher: VS Code starts it after a reload, and for an 'unknown' or kept outcome.
  const watcher = harness({ state: h.state });
  const adopted: number[] = [];
  const resumed = readInflight(h.state).length
    ? await resumeInflight(watcher.ports, { maxWaitMs: 2 * 60 * 60_000, onAdopted: (_r, inst) => adopted.push(inst.id) })
    : [];
  const ids = await held();
  assert.equal(ids.length, 1, `${s.name}: ${ids.length} machines for one click`);
  const id = ids[0]!;
  const ran = result?.outcome === 'running' && result.instance.id === id;
  const watched = resumed.some((x) => x.instanceId === id && x.outcome === 'ready' && x.alias === `gpu-${id}`);
  assert.ok(ran || watched, `${s.name}: instance ${id} is neither the flow's result nor picked up by the watcher: ${JSON.stringify({ result, resumed })}`);
  if (!ran) assert.ok(watcher.upserts.includes(id), `${s.name}: the late machine has its row`);
  if (result?.outcome === 'unknown') assert.deepEqual(adopted, [id], `${s.name}: the late machine is announced as adopted`);
  assert.deepEqual(readInflight(h.state), [], `${s.name}: nothing left in flight`);
  return { h, result, asked, resumed, adopted, watcher };
}
