// A group's "cost so far": its members summed, from the same sources as an instance's row (the
// service's charges when they cover every member, else the rate ledger), never a partial sum.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Charge, Instance } from '../../../src/api/types';
import { CostNotesImpl } from '../../../src/costs/costLedger';
import { DAY, groupCost, instanceCostLine, summarizeCharges } from '../../../src/billing/spending';

const HOUR = 3_600_000;
const running = (id: number, dph: number, extra: Partial<Instance> = {}): Instance => ({
  id,
  state: 'running',
  actual_status: 'running',
  intended_status: 'running',
  dph_total: dph,
  instance: { totalHour: dph },
  ...extra,
});

test('the ledger sums the members seen: service totals as they are, rates as an estimate since the latest first sight', () => {
  const notes = new CostNotesImpl();
  const t0 = Date.parse('2026-11-25T08:00:00');
  notes.observe([running(1, 1), running(2, 2)], t0);
  notes.observe([running(1, 1), running(2, 2), running(3, 4, { total_cost: 0.5 })], t0 + HOUR / 2);
  const g = notes.group([running(1, 1), running(2, 2), running(3, 4, { total_cost: 0.5 })], t0 + HOUR);
  assert.ok(g);
  // 1 $/h and 2 $/h for an hour, plus the service's own 0.50.
  assert.equal(Number(g.amount.toFixed(4)), 3.5);
  assert.equal(g.estimate, true);
  assert.match(g.line, /^Cost so far: ≈ \$3\.50 \(estimate from the rates seen since /);
  // Each member's own line is what its row shows; the group's amount is their sum.
  assert.match(notes.line(running(1, 1), t0 + HOUR) ?? '', /≈ \$1\.00/);
});

test('a member never seen makes the group unknown rather than a sum that reads as the whole group', () => {
  const notes = new CostNotesImpl();
  const t0 = Date.parse('2026-11-25T08:00:00');
  notes.observe([running(1, 1)], t0);
  assert.equal(notes.group([running(1, 1), running(9, 1)], t0 + HOUR), undefined);
  assert.equal(notes.group([], t0 + HOUR), undefined);
});

test("the service's charges: summed when they cover every member, else none (the ledger answers)", () => {
  const now = Date.parse('2026-11-25T15:00:00Z') / 1000;
  const day = Date.parse('2026-11-20T00:00:00Z') / 1000;
  const charge = (source: string, amount: number): Charge => ({
    start: day,
    end: day + DAY,
    type: 'instance',
    source,
    amount,
    items: [{ type: 'gpu', amount }],
  });
  const s = summarizeCharges([charge('instance-1', 2), charge('instance-2', 3.25)], now);
  const inst = (id: number) => ({ id, start_date: day }) as Instance;
  assert.deepEqual(groupCost(s, [inst(1), inst(2)]), { amount: 5.25, estimate: false, line: "Cost so far: $5.25 (the service's charges)" });
  assert.equal(groupCost(s, [inst(1), inst(3)]), undefined, 'instance 3 has no charge: not a partial sum');
  assert.equal(groupCost(undefined, [inst(1)]), undefined);
  assert.equal(instanceCostLine(s, inst(2)), "Cost so far: $3.25 (the service's charges)");
});
