// The agent tool core against the simulator: the catalogue, the quote's two steps (a repeated or
// concurrent confirm never rents twice), the caps (refused with nothing sent), destroy's echo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS, describeConsent, invokeTool, needsConsent, toolJsonSchema, toolManifest } from '../../../src/agent/toolCatalogue';
import { puts, simInstances, useFlowSim } from '../create/flowHarness';
import { agentHarness, quoteIdOf } from './agentHarness';

useFlowSim();

test('every tool has a snake_case name, a model description, a JSON schema and says whether it needs consent', () => {
  const names = TOOLS.map((t) => t.name);
  assert.equal(new Set(names).size, names.length);
  for (const t of TOOLS) {
    assert.match(t.name, /^[a-z]+(_[a-z]+)*$/);
    assert.ok(t.modelDescription.length > 60, t.name);
    const s = toolJsonSchema(t);
    assert.equal(s.type, 'object', t.name);
    assert.equal(s.$schema, undefined);
  }
  assert.deepEqual(
    TOOLS.filter(needsConsent)
      .map((t) => t.name)
      .sort(),
    ['decide_price_increase', 'destroy_instance', 'rent', 'start_instance'],
  );
  assert.deepEqual(
    toolManifest().map((m) => m.name),
    names,
  );
  assert.deepEqual((toolJsonSchema(TOOLS.find((t) => t.name === 'destroy_instance')!).required as string[]).sort(), ['confirm', 'instance_id']);
});

test('rent without a quote id quotes and rents nothing; with it, rents exactly one machine with the guard in its onstart, however often it is confirmed', async () => {
  const h = agentHarness({ caps: { maxDphTotal: 5 } });
  const quote = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.equal(quote.isError, undefined, quote.text);
  assert.match(quote.text, /Rent offer \d+: .*\$[\d.]+\/h with 20 GB disk, .*template \.gpu\/test\.json\./);
  assert.match(quote.text, /Idle guard: stops it after \d+ idle minutes/);
  assert.match(quote.text, /Per-hour cap: \$5\.00\/h/);
  assert.equal(await puts(), 0);
  const id = quoteIdOf(quote.text);
  const confirms = await Promise.all([1, 2, 3].map(() => invokeTool(h.ports, 'rent', { template: '.gpu/test.json', quote_id: id })));
  assert.equal(await puts(), 1, 'one PUT /asks/ for three concurrent confirms');
  const rented = confirms.find((r) => /^Rented instance \d+: running/.test(r.text));
  assert.ok(rented, confirms.map((r) => r.text).join('\n'));
  assert.equal(confirms.filter((r) => /already confirmed; nothing was sent again/.test(r.text)).length, 2);
  const again = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json', quote_id: id });
  assert.match(again.text, /already confirmed/);
  assert.equal(await puts(), 1);
  const insts = await simInstances();
  assert.equal(insts.length, 1);
  assert.match(insts[0]!.onstart ?? '', /gpu-rental/, 'the idle guard is in its onstart');
  assert.deepEqual(h.sshWrites, [insts[0]!.id]);
});

test('a cap that would be broken refuses the quote and the confirm, and nothing is sent', async () => {
  const h = agentHarness({ caps: { maxDphTotal: 0.01 } });
  const r = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.equal(r.isError, true);
  assert.match(r.text, /above the per-hour cap for agents \(\$0\.010\/h\)\. Nothing was sent/);
  h.caps = { monthlyBudget: 100 };
  h.spending = { spentThisMonth: 99.9, ratePerHour: 0 };
  const b = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.match(b.text, /would break the monthly budget/);
  // Quoted within the budget, then the budget is spent before the confirm.
  h.spending = { spentThisMonth: 0, ratePerHour: 0 };
  const q = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.match(q.text, /Budget: \$100\.00 left of \$100\.00/);
  h.spending = { spentThisMonth: 99.99, ratePerHour: 0 };
  const c = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json', quote_id: quoteIdOf(q.text) });
  assert.equal(c.isError, true);
  assert.match(c.text, /would break the monthly budget/);
  assert.equal(await puts(), 0);
});

test('the consent text names the price with disk, the guard and the budget left, and its quote rents', async () => {
  const h = agentHarness({ caps: { monthlyBudget: 50 } });
  h.spending = { spentThisMonth: 10, ratePerHour: 0.5 };
  const c = await describeConsent(h.ports, 'rent', { image: 'pytorch/pytorch:latest', disk_gb: 30 });
  assert.ok(c?.quoteId);
  assert.match(c.message, /^Rent offer \d+: 1× .*, \$[\d.]+\/h with 30 GB disk, .*Image pytorch\/pytorch:latest, no template\./);
  assert.match(c.message, /Idle guard: stops it/);
  assert.match(c.message, /Budget: \$40\.00 left of \$50\.00 this month \(\$10\.00 spent, \$0\.500\/h running\)/);
  assert.equal(await describeConsent(h.ports, 'list_instances', {}), undefined);
  const r = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest', disk_gb: 30, quote_id: c.quoteId });
  assert.match(r.text, /^Rented instance \d+: running/, r.text);
  assert.equal(await puts(), 1);
});

test('destroy needs the label or id echoed; stop and list answer in short lines', async () => {
  const h = agentHarness();
  const q = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest' });
  const r = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest', quote_id: quoteIdOf(q.text) });
  const id = Number(/Rented instance (\d+)/.exec(r.text)?.[1]);
  assert.ok(id > 0, r.text);
  const list = await invokeTool(h.ports, 'list_instances', {});
  assert.match(list.text, new RegExp(`#${id} "agent-\\w{4}" running, .*\\$[\\d.]+/h, .*guard: stops it after \\d+ idle min, ssh gpu-${id}`));
  const stop = await invokeTool(h.ports, 'stop_instance', { instance_id: id });
  assert.match(stop.text, new RegExp(`Stop of instance ${id} sent`));
  const wrong = await invokeTool(h.ports, 'destroy_instance', { instance_id: id, confirm: 'yes' });
  assert.equal(wrong.isError, true);
  assert.match(wrong.text, /must repeat its label .* or its id .*Nothing was sent/);
  assert.equal((await simInstances()).length, 1);
  const done = await invokeTool(h.ports, 'destroy_instance', { instance_id: id, confirm: String(id) });
  assert.match(done.text, /Destroy of instance \d+ sent/);
  assert.equal((await simInstances()).length, 0);
});

test('search_offers answers one line per offer, cheapest first, with the disk its prices include', async () => {
  const h = agentHarness();
  const r = await invokeTool(h.ports, 'search_offers', { num_gpus: 1, disk_gb: 30, limit: 4 });
  const lines = r.text.split('\n');
  assert.match(lines[0]!, /^4 offer\(s\), cheapest first \(prices include 30 GB disk\):$/);
  const prices = lines.slice(1).map((l) => {
    assert.match(l, /^offer \d+: 1× [^,]+, \$[\d.]+\/h with disk, reliability [\d.]+ %/);
    return Number(/\$([\d.]+)\/h/.exec(l)![1]);
  });
  assert.deepEqual(
    prices,
    [...prices].sort((a, b) => a - b),
  );
});
