// What the service has charged, rule by rule, each written to fail if one small change were
// planted in src/billing/spending.ts, stoppedStorage.ts or src/api/billingApi.ts (the `billing`
// mutation group, BENCHMARKS.md): day, week and month edges, the per-day and per-instance sums,
// the CSV, the store's errors, the stopped-storage and contract-end edges, and the charges walk's
// checks (range, page bound, an empty page that hands out a token, the filters sent). No server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { billingCalls, type BillingEndpoint, type BillingPipeline } from '../../../src/api/billingApi';
import type { Charge, Instance, ServiceApi } from '../../../src/api/types';
import { DAY, SpendingStore, chargesCsv, dayStart, instanceCostLine, spentLines, summarizeCharges } from '../../../src/billing/spending';
import { CONTRACT_END_WARN_S, contractsEndingSoon, staleMark, staleStopped } from '../../../src/billing/stoppedStorage';
import { rejection, scripted } from '../api/helpers';

const at = (iso: string) => Date.parse(`${iso}Z`) / 1000;
const now = at('2026-11-25T15:00:00'); // a Wednesday
const charge = (start: number, amount: number, over: Partial<Charge> = {}): Charge => ({
  start,
  end: start + DAY,
  type: 'instance',
  source: 'instance-1',
  amount,
  items: [],
  ...over,
});

test('week from Monday 00:00 and month to today: a row dated after today counts in neither', () => {
  const s = summarizeCharges([charge(at('2026-11-23T00:00:00'), 1), charge(at('2026-11-22T23:00:00'), 2), charge(dayStart(now) + DAY, 4)], now);
  assert.equal(s.week, 1, 'Monday in, Sunday out, tomorrow out');
  assert.equal(s.month, 3);
  assert.equal(s.today, 0);
});

test('a row older than the 30 days is summed nowhere but its instance; sums per type of a day, up to 8 types', () => {
  const old = charge(dayStart(now) - 40 * DAY, 9);
  const day = dayStart(now) - DAY;
  const types = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((type) => charge(day, 1, { type, source: 'volume-1' }));
  const s = summarizeCharges([old, charge(day, 2), charge(day, 3), ...types, charge(day, 0.5, { type: 'a', source: 'volume-1' })], now);
  assert.equal(s.last30, 5 + 9 + 0.5);
  assert.equal(s.byInstance.get(1), 14, 'the old row still counts for its instance');
  const row = s.days.find((d) => d.day === day)!;
  assert.equal(row.total, 14.5);
  assert.deepEqual(row.byType, { instance: 5, a: 1.5, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 }, 'a type already there keeps adding; a ninth is left out');
});

test('per instance: only a source that is exactly instance-<id>; its disk items; its first label, cut to 120', () => {
  const long = 'x'.repeat(200);
  const s = summarizeCharges(
    [
      charge(now, 1, {
        items: [
          { type: 'disk', amount: 0.25 },
          { type: 'gpu', amount: 0.6 },
        ],
        metadata: { label: 'first' },
      }),
      charge(now, 2, { items: [{ type: 'disk', amount: 0.5 }], metadata: { label: 'second' } }),
      charge(now, 4, { source: 'instance-2', metadata: { label: long } }),
      charge(now, 8, { source: 'xinstance-3' }),
      charge(now, 16, { source: 'instance-4x' }),
    ],
    now,
  );
  assert.deepEqual(
    [...s.byInstance],
    [
      [1, 3],
      [2, 4],
    ],
  );
  assert.equal(s.other, 24);
  assert.equal(s.storageByInstance.get(1), 0.75);
  assert.equal(s.labels.get(1), 'first');
  assert.equal(s.labels.get(2), 'x'.repeat(120));
});

test('cost so far: only for an instance whose whole life the charges cover', () => {
  const s = summarizeCharges([charge(now, 5)], now);
  const inst = (start_date?: number) => ({ id: 1, start_date }) as Instance;
  assert.equal(instanceCostLine(undefined, inst(now)), undefined);
  assert.equal(instanceCostLine(s, inst(undefined)), undefined, 'no start date: not known to be covered');
  assert.equal(instanceCostLine(s, inst(s.from)), "Cost so far: $5.00 (the service's charges)", 'started the first second of the window');
  assert.equal(instanceCostLine(s, { id: 2, start_date: now } as Instance), undefined);
  assert.deepEqual(spentLines(s), ['Spent today: $5.00', 'This week: $5.00', 'This month: $5.00']);
});

test("CSV: rows by day then source, the real day, a charge without metadata; the caller's list left as it was", () => {
  const list = [
    charge(at('2026-11-24T10:00:00'), 1, { source: 'instance-9' }),
    charge(at('2026-11-24T10:00:00'), 2, { source: 'instance-2', metadata: { label: 'l' } }),
    charge(at('2026-11-20T00:00:00'), 3),
  ];
  const rows = chargesCsv(list).trim().split('\r\n').slice(1);
  assert.deepEqual(rows, [
    '2026-11-20,instance,instance-1,,,3.000000',
    '2026-11-24,instance,instance-2,l,,2.000000',
    '2026-11-24,instance,instance-9,,,1.000000',
  ]);
  assert.deepEqual(
    list.map((c) => c.amount),
    [1, 2, 3],
  );
});

test('the spending store: read again from exactly 5 minutes; a failure warned once per message, the last figures kept', async () => {
  let t = now;
  let failWith: string | undefined;
  let reads = 0;
  const warned: string[] = [];
  const api = {
    forEachChargePage: async (_q: unknown, onPage: (rows: readonly Charge[]) => void) => {
      reads++;
      if (failWith) throw new Error(failWith);
      onPage([charge(t, 1)]);
    },
  } as unknown as ServiceApi;
  const store = new SpendingStore({ api: async () => api, now: () => t, warn: (m) => warned.push(m) });
  let changes = 0;
  store.onDidChange(() => changes++);
  const first = await store.maybeRefresh();
  t += 300;
  failWith = 'HTTP 502';
  assert.equal(await store.maybeRefresh(), first, 'the last figures stay');
  assert.equal(reads, 2, 'read again after exactly 5 minutes');
  await store.refresh();
  assert.equal(store.error, 'HTTP 502');
  failWith = 'HTTP 503';
  await store.refresh();
  assert.equal(warned.length, 2, 'once per message');
  assert.match(warned[0]!, /charges could not be read .*HTTP 502/);
  store.clear();
  assert.equal(store.current, undefined);
  assert.equal(store.error, undefined);
  assert.equal(changes, 5);
  store.dispose();
  store.clear();
  assert.equal(changes, 5, 'no event after dispose');
});

const stopped = (id: number, over: Partial<Instance> = {}): Instance =>
  ({ id, state: 'stopped', intended_status: 'stopped', is_bid: false, start_date: now - 3 * 86400, storage_cost: 0.01, ...over }) as Instance;

test('stopped storage: exactly the days set counts; no start date, no flag; no figure so far without one', () => {
  const s = staleStopped([stopped(1), stopped(2, { start_date: undefined })], 3, now);
  assert.deepEqual(
    s.map((x) => x.inst.id),
    [1],
  );
  assert.equal(s[0]!.storageSoFar, undefined, 'no charges callback: not known');
  const mark = staleMark(s[0]!);
  assert.equal(mark.text, 'storage $7.30/month');
  assert.doesNotMatch(mark.tooltip, /so far/);
  assert.match(staleMark({ ...s[0]!, storageSoFar: 0.5 }).tooltip, /\(\$7\.30 a month\), \$0\.50 of storage so far\./);
});

test('contract end: warned from exactly 48 h before, not once it has ended', () => {
  const rows = [stopped(1, { end_date: now + CONTRACT_END_WARN_S }), stopped(2, { end_date: now }), stopped(3, { end_date: now + CONTRACT_END_WARN_S + 1 })];
  assert.deepEqual(
    contractsEndingSoon(rows, now, new Set()).map((i) => i.id),
    [1],
  );
});

/** A charges walk whose every page hands out a new token (`rows` per page), recording each path. */
function endless(rows: number) {
  const paths: string[] = [];
  const pipe: BillingPipeline = {
    send: async <T>(ep: BillingEndpoint<T>) =>
      (paths.push(ep.path), { results: Array.from({ length: rows }, () => charge(now, 1)), next_token: `t${paths.length}` }) as T,
    validate: async () => undefined,
  };
  return { api: billingCalls(pipe), paths };
}
const filtersOf = (path: string) => JSON.parse(new URL(path, 'http://x').searchParams.get('select_filters')!);

test('the charges walk stops after 100 pages, and at a page that is empty but hands out a token', async () => {
  const many = endless(1);
  const e = await rejection(many.api.listCharges({ from: now - DAY, to: now }));
  assert.equal(e.kind, 'malformed');
  assert.match(e.message, /more than 100 pages/);
  assert.equal(many.paths.length, 100);
  const empty = endless(0);
  assert.equal((await rejection(empty.api.listCharges({ from: now - DAY, to: now }))).kind, 'malformed');
  assert.equal(empty.paths.length, 1);
});

test('the day and invoice filters sent: whole seconds around the range asked', async () => {
  const w = endless(0);
  await w.api.listCharges({ from: 10.5, to: 20.5 }).catch(() => undefined);
  await w.api.listInvoices({ from: 10.5, to: 20.5 }).catch(() => undefined);
  assert.deepEqual(filtersOf(w.paths[0]!), { day: { gte: 10, lte: 21 } });
  assert.deepEqual(filtersOf(w.paths[1]!), { when: { gte: 10, lte: 21 } });
});

test('a range that is not one is refused before any request, naming what is wrong; an empty range is asked', async () => {
  const w = endless(0);
  for (const [q, problem] of [
    [{ from: Number.NaN, to: now }, 'from: must be epoch seconds'],
    [{ from: now, to: Number.POSITIVE_INFINITY }, 'to: must be epoch seconds'],
    [{ from: now, to: now - 1 }, 'to: must not be before from'],
  ] as const) {
    const e = await rejection(w.api.listCharges(q));
    assert.equal(e.kind, 'invalid_request');
    assert.deepEqual(e.problems, [problem]);
    assert.equal((await rejection(w.api.listInvoices(q))).kind, 'invalid_request');
  }
  assert.equal(w.paths.length, 0);
  await w.api.listCharges({ from: now, to: now }).catch(() => undefined);
  assert.equal(w.paths.length, 1);
});

test('Accept and Reject take an empty 200 as done', async () => {
  const { api, seen } = scripted(() => ({ status: 200, headers: {}, text: '' }));
  await api.acceptPriceIncrease(7);
  await api.rejectPriceIncrease(7);
  assert.deepEqual(
    seen.map((r) => [r.method, r.body]),
    [
      ['PUT', '{"pending_price_increase_id":7}'],
      ['PUT', '{"pending_price_increase_id":7}'],
    ],
  );
});
