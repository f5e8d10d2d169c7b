// Spending from the service's charges: today / week / month / 30 days, per instance, the chart
// and the CSV, against the simulator's charges over loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargesCsv, instanceCostLine, summarizeCharges, weekStart, monthStart, windowStart, SpendingStore, DAY } from '../../../src/billing/spending';
import { spendingDaysTable, spendingSvg } from '../../../src/billing/spendingChart';
import type { Charge, Instance } from '../../../src/api/types';
import { useHarness, type Harness } from '../api/helpers';

const charge = (start: number, amount: number, source = 'instance-1', type = 'instance'): Charge => ({
  start,
  end: start + DAY,
  type,
  source,
  amount,
  items: [
    { type: 'gpu', amount: amount * 0.9 },
    { type: 'disk', amount: amount * 0.1 },
  ],
});

test('calendar edges: week from Monday, month from the 1st, all in UTC', () => {
  const wed = Date.parse('2026-11-25T15:00:00Z') / 1000;
  assert.equal(new Date(weekStart(wed) * 1000).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(new Date(monthStart(wed) * 1000).toISOString(), '2026-11-01T00:00:00.000Z');
  assert.equal(new Date(windowStart(wed) * 1000).toISOString(), '2026-10-27T00:00:00.000Z');
});

test('today, week, month, last 30 days and per instance', () => {
  const now = Date.parse('2026-11-25T15:00:00Z') / 1000;
  const d = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;
  const s = summarizeCharges(
    [charge(d('2026-11-25'), 1), charge(d('2026-11-24'), 2, 'instance-2'), charge(d('2026-11-20'), 4), charge(d('2026-10-30'), 8, 'volume-3', 'volume')],
    now,
  );
  assert.equal(s.today, 1);
  assert.equal(s.week, 3);
  assert.equal(s.month, 7);
  assert.equal(s.last30, 15);
  assert.equal(s.days.length, 30);
  assert.equal(s.days.at(-1)!.total, 1);
  assert.equal(s.byInstance.get(1), 5);
  const inst = (start: number) => ({ id: 1, start_date: start }) as Instance;
  assert.equal(instanceCostLine(s, inst(d('2026-11-01'))), "Cost so far: $5.00 (the service's charges)");
  assert.equal(instanceCostLine(s, inst(d('2026-09-01'))), undefined, 'older than the window: the charges do not cover it');
  const svg = spendingSvg(s);
  assert.match(svg, /^<svg [^>]*role="img"/);
  assert.equal((svg.match(/<g><title>/g) ?? []).length, 30);
  assert.doesNotMatch(svg, /<script|href=/);
});

test('the chart as a table: a row per charged day with each type, "other" and the total; server text escaped', () => {
  const now = Date.parse('2026-11-25T15:00:00Z') / 1000;
  const d = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;
  const s = summarizeCharges(
    [charge(d('2026-11-25'), 1), charge(d('2026-11-25'), 0.5, 'x-1', '<b>gift</b>'), charge(d('2026-10-30'), 8, 'volume-3', 'volume')],
    now,
  );
  const html = spendingDaysTable(s);
  const rows = [...html.matchAll(/<tr><th scope="row">([^<]+)<\/th>(.*?)<\/tr>/g)].map((m) => [m[1], [...m[2]!.matchAll(/>([^<]+)<\/td>/g)].map((c) => c[1])]);
  assert.deepEqual(rows, [
    ['2026-10-30', ['$0.00', '$8.00', '$0.00', '$0.00', '$8.00']],
    ['2026-11-25', ['$1.00', '$0.00', '$0.00', '$0.50', '$1.50']],
  ]);
  assert.match(html, /<th scope="col" class="num">other<\/th>/);
  assert.doesNotMatch(html, /<b>/);
  assert.match(spendingDaysTable(summarizeCharges([], now)), /No charges in the last 30 days/);
});

test('a charge on the 1st of the month counts in the month; the last day before it does not', () => {
  const d = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;
  const now = Date.parse('2026-11-18T09:00:00Z') / 1000;
  const s = summarizeCharges([charge(d('2026-11-01'), 2), charge(d('2026-10-31'), 5), charge(d('2026-11-01') + 3600, 0.5)], now);
  assert.equal(s.month, 2.5);
  assert.equal(s.last30, 7.5);
});

test('CSV: quoted, formula cells defused, one column per item type', () => {
  const c = { ...charge(0, 1.5), description: '=HYPERLINK("http://x","click")', metadata: { label: 'a,b' } };
  const csv = chargesCsv([c]);
  const [head, row] = csv.trim().split('\r\n');
  assert.equal(head, 'day,type,source,label,description,amount_usd,disk_usd,gpu_usd');
  assert.equal(row, `1970-01-01,instance,instance-1,"a,b","'=HYPERLINK(""http://x"",""click"")",1.500000,0.150000,1.350000`);
});

let h: Harness;
useHarness({ instances: 2 }, (x) => (h = x));

test('against the simulator: the month equals what the instances cost; read at most every 5 minutes', async () => {
  await h.ctl.advance(2 * DAY);
  const api = h.client();
  let now = await h.ctl.now();
  const store = new SpendingStore({ api: async () => api, now: () => now, warn: () => undefined });
  // The simulator's clock runs with the wall clock: the sum lies between the costs read before and after.
  const total = async () => (await api.listInstances({ columns: 'all' })).instances.reduce((a, i) => a + (i.total_cost ?? 0), 0);
  const lo = await total();
  const s = (await store.refresh())!;
  const hi = await total();
  assert.ok(s.last30 > lo - 1e-3 && s.last30 < hi + 1e-3, `30 days ${s.last30} within total_cost ${lo} … ${hi}`);
  assert.ok(s.today > 0 && s.today < s.last30);
  const n = h.sim.state.requests.length;
  now += 60;
  await store.maybeRefresh();
  assert.equal(h.sim.state.requests.length, n, 'no request within 5 minutes');
  now += 300;
  await store.maybeRefresh();
  assert.ok(h.sim.state.requests.length > n);
});
