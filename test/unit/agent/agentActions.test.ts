// start_instance and decide_price_increase against the simulator: quote first (nothing sent),
// the confirm once, the caps on both steps; and the MCP server's caps from its config file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invokeTool } from '../../../src/agent/toolCatalogue';
import { readCaps } from '../../../src/agent/mcpPorts';
import { flowSim, useFlowSim } from '../create/flowHarness';
import { agentHarness, quoteIdOf } from './agentHarness';

useFlowSim();

async function requests(method: string, path: RegExp): Promise<number> {
  return (await flowSim.control.requests()).filter((r) => r.method === method && path.test(r.path)).length;
}

async function rentedAndStopped(h: ReturnType<typeof agentHarness>): Promise<number> {
  const q = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest' });
  const r = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest', quote_id: quoteIdOf(q.text) });
  const id = Number(/Rented instance (\d+)/.exec(r.text)?.[1]);
  assert.ok(id > 0, r.text);
  await invokeTool(h.ports, 'stop_instance', { instance_id: id });
  await flowSim.control.advance(120);
  return id;
}

test('start_instance quotes the price and guard, sends nothing, then starts once however often confirmed', async () => {
  const h = agentHarness();
  const id = await rentedAndStopped(h);
  const before = await requests('PUT', /\/instances\/\d+\/?$/);
  const q = await invokeTool(h.ports, 'start_instance', { instance_id: id });
  assert.match(q.text, new RegExp(`^Quote q-\\w+: Start instance ${id}: it bills \\$[\\d.]+/h while running .*Idle guard: stops it after 30 idle min`), q.text);
  assert.equal(await requests('PUT', /\/instances\/\d+\/?$/), before, 'a quote sends nothing');
  const [a, b] = await Promise.all([0, 1].map(() => invokeTool(h.ports, 'start_instance', { instance_id: id, quote_id: quoteIdOf(q.text) })));
  assert.match(a!.text, new RegExp(`Start of instance ${id} sent`));
  assert.match(b!.text, /already confirmed; nothing was sent again/);
  assert.equal(await requests('PUT', /\/instances\/\d+\/?$/), before + 1);
  const other = await invokeTool(h.ports, 'start_instance', { instance_id: id + 1, quote_id: quoteIdOf(q.text) });
  assert.equal(other.isError, undefined, 'the repeat answers with the first result, not a new send');
});

test('start_instance is refused above the per-hour cap, before anything is sent', async () => {
  const h = agentHarness();
  const id = await rentedAndStopped(h);
  h.caps = { maxDphTotal: 0.0001 };
  const r = await invokeTool(h.ports, 'start_instance', { instance_id: id });
  assert.equal(r.isError, true);
  assert.match(r.text, /above the per-hour cap for agents/);
});

test('decide_price_increase: a quote with the figures, then accept once; an increase that is not pending is refused', async () => {
  const h = agentHarness();
  const q0 = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest' });
  const id = Number(
    /Rented instance (\d+)/.exec((await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest', quote_id: quoteIdOf(q0.text) })).text)?.[1],
  );
  const inc = await flowSim.control.priceIncrease(id, { gpuFactor: 1.5 });
  const list = await invokeTool(h.ports, 'price_increases', {});
  assert.match(list.text, new RegExp(`increase ${inc}: The host of #${id} raises its price`));
  const q = await invokeTool(h.ports, 'decide_price_increase', { increase_id: inc, decision: 'accept' });
  assert.match(q.text, new RegExp(`^Quote q-\\w+: Accept price increase ${inc}: the instance then bills \\$[\\d.]+/h`));
  assert.equal(await requests('PUT', /accept/), 0);
  const wrong = await invokeTool(h.ports, 'decide_price_increase', { increase_id: inc, decision: 'reject', quote_id: quoteIdOf(q.text) });
  assert.match(wrong.text, /is to accept increase \d+, not to reject/);
  const q2 = await invokeTool(h.ports, 'decide_price_increase', { increase_id: inc, decision: 'accept' });
  const ok = await invokeTool(h.ports, 'decide_price_increase', { increase_id: inc, decision: 'accept', quote_id: quoteIdOf(q2.text) });
  assert.match(ok.text, new RegExp(`Price increase ${inc} accepted`));
  assert.equal(await requests('PUT', /accept/), 1);
  const gone = await invokeTool(h.ports, 'decide_price_increase', { increase_id: inc, decision: 'accept' });
  assert.match(gone.text, /is not pending/);
});

test('the MCP server caps: env over the config file; a bad value is an error, never "no cap"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-caps-'));
  try {
    assert.deepEqual(await readCaps({}, dir), {});
    writeFileSync(join(dir, 'agent.json'), JSON.stringify({ maxDphTotal: 2, monthlyBudget: 100 }));
    assert.deepEqual(await readCaps({}, dir), { maxDphTotal: 2, maxDphFrom: `maxDphTotal in ${join(dir, 'agent.json')}`, monthlyBudget: 100 });
    assert.deepEqual(await readCaps({ GPU_RENTAL_MAX_DPH: '0.5' }, dir), { maxDphTotal: 0.5, maxDphFrom: 'GPU_RENTAL_MAX_DPH', monthlyBudget: 100 });
    await assert.rejects(readCaps({ GPU_RENTAL_MONTHLY_BUDGET: '-3' }, dir), /GPU_RENTAL_MONTHLY_BUDGET must be a positive number/);
    writeFileSync(join(dir, 'agent.json'), JSON.stringify({ maxDph: 2 }));
    await assert.rejects(readCaps({}, dir), /only maxDphTotal and monthlyBudget are known/);
    writeFileSync(join(dir, 'agent.json'), '{ maxDphTotal: 2');
    await assert.rejects(readCaps({}, dir), /not valid JSON/);
    await assert.rejects(readCaps({ GPU_RENTAL_AGENT_CONFIG: join(dir, 'missing.json') }, dir), /could not be read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
