// The rent tool under every fault the simulator can inject on create, show and list (the create
// flow's sweep, through the agent's quote and confirm): at most one machine per confirmed quote,
// and each one named in the tool's answer or kept in the in-flight records. Also 429s and a
// lagging service on the read tools: a clear answer, nothing rented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimFault, WireFaultKind } from '../../../src/sim/control';
import { WIRE_FAULTS } from '../../kit/wireFaults';
import { readInflight } from '../../../src/create/createFlow';
import { invokeTool } from '../../../src/agent/toolCatalogue';
import { flowSim, puts, useFlowSim } from '../create/flowHarness';
import { agentHarness, quoteIdOf, type AgentHarness } from './agentHarness';

useFlowSim();

const CREATE = '/api/v0/asks/';
const FAULTS = WIRE_FAULTS;
const TARGETS: Array<[string, { path: string; exact?: boolean }]> = [
  ['create', { path: CREATE }],
  ['show', { path: '/api/v0/instances/2' }],
  ['list v1', { path: '/api/v1/instances', exact: true }],
];

async function held(): Promise<number[]> {
  const res = await fetch(`${flowSim.sim.url}/_sim/state`);
  return ((await res.json()) as { instances: Array<{ id: number }> }).instances.map((i) => i.id);
}

async function quoteAndConfirm(h: AgentHarness): Promise<string> {
  const q = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.equal(q.isError, undefined, q.text);
  const [a, b] = await Promise.all([0, 1].map(() => invokeTool(h.ports, 'rent', { template: '.gpu/test.json', quote_id: quoteIdOf(q.text) })));
  return `${a!.text}\n${b!.text}`;
}

test('money invariant through the rent tool: under every injectable fault, a confirmed quote holds at most one machine, named or tracked', async () => {
  const cases: Array<{ what: string; fault: SimFault }> = [];
  for (const kind of Object.keys(FAULTS) as WireFaultKind[])
    for (const [name, target] of TARGETS) {
      const f = FAULTS[kind](target.path);
      const fault = (f.kind === 'hidden' || f.kind === 'unfiltered' ? f : { ...f, ...(target.exact ? { exact: true } : {}), count: 2 }) as SimFault;
      if (f.kind === 'http_error') for (const status of [404, 429, 500]) cases.push({ what: `${status} on ${name}`, fault: { ...fault, status } as SimFault });
      cases.push({ what: `${kind} on ${name}`, fault });
    }
  for (const c of cases) {
    await flowSim.control.reset();
    await flowSim.control.fault(c.fault);
    const h = agentHarness({ timeoutMs: 300 });
    h.ports.maxWaitMs = 20 * 60_000;
    const text = await quoteAndConfirm(h);
    const ids = await held();
    assert.ok(ids.length <= 1, `${c.what}: ${ids.length} machines for one quote:\n${text}`);
    for (const id of ids) {
      const tracked = readInflight(h.state).some((r) => r.instanceId === id || r.late === true);
      assert.ok(new RegExp(`\\b${id}\\b`).test(text) || tracked, `${c.what}: instance ${id} is neither named nor tracked:\n${text}`);
    }
  }
});

test('a 429 on every read and a lagging service: the read tools answer or say what failed, and nothing is rented', async () => {
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: '/api/v0/bundles', count: 20 });
  const h = agentHarness({ timeoutMs: 300 });
  const r = await invokeTool(h.ports, 'search_offers', {});
  assert.equal(r.isError, true, r.text);
  assert.match(r.text, /^search_offers failed: The service is limiting how often requests can be made/);
  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'slow', ms: 150, path: '/api/v1/instances', exact: true, count: 5 });
  const slow = await invokeTool(h.ports, 'list_instances', {});
  assert.equal(slow.isError, undefined, slow.text);
  assert.match(slow.text, /^No instances/);
  assert.equal(await puts(), 0);
  assert.ok(!h.log.lines.join('\n').includes('sim-api-key'), 'no key in the log');
});

test('a rental whose machine the list does not show yet is named by list_instances, so an agent does not rent again blind', async () => {
  await flowSim.control.fault({ kind: 'reset', path: CREATE, count: 1 });
  await flowSim.control.fault({ kind: 'hidden', seconds: 600 });
  const h = agentHarness({ timeoutMs: 300 });
  const text = await quoteAndConfirm(h);
  assert.match(text, /nothing else was rented/);
  const list = await invokeTool(h.ports, 'list_instances', {});
  assert.match(list.text, /^No instances in the list\.\nrental "Unit-test-box-\w{4}": sent, not in the list yet; it may still appear and bill, and is watched/);
  assert.equal((await held()).length, 1);
});
