// The charges walk: every page, in order, each page handed on and none kept; the spending sums fed
// page by page hold only sums (bounded, whatever the number or size of pages the service sends).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { billingCalls, type BillingEndpoint, type BillingPipeline } from '../../../src/api/billingApi';
import type { Charge, ServiceApi } from '../../../src/api/types';
import { DAY, MAX_INSTANCES, SpendingStore, SpendingSum, dayStart } from '../../../src/billing/spending';
import { useHarness, type Harness } from '../api/helpers';

const now = Date.parse('2026-11-25T15:00:00Z') / 1000;
const charge = (n: number): Charge => ({
  start: dayStart(now) - (n % 20) * DAY,
  end: 0,
  type: 'instance',
  source: `instance-${n}`,
  amount: n,
  items: [{ type: 'disk', amount: 0.5 }],
});

/** A pipeline that serves `pages` (next_token `t1`, `t2`…) and records each path asked. */
function paged(pages: Charge[][]) {
  const paths: string[] = [];
  const pipe: BillingPipeline = {
    send: async <T>(ep: BillingEndpoint<T>) => {
      paths.push(ep.path);
      const token = new URL(ep.path, 'http://x').searchParams.get('after_token');
      const i = token ? Number(token.slice(1)) : 0;
      return { results: pages[i] ?? [], skipped: 0, ...(i + 1 < pages.length ? { next_token: `t${i + 1}` } : {}) } as T;
    },
    validate: async () => undefined,
  };
  return { api: billingCalls(pipe), paths };
}

test('several pages: every row of every page, the first page included, in order; tokens followed', async () => {
  const pages = [[charge(1), charge(2)], [charge(3)], [charge(4), charge(5)]];
  const { api, paths } = paged(pages);
  const rows = await api.listCharges({ from: now - 30 * DAY, to: now });
  assert.deepEqual(
    rows.map((c) => c.amount),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    paths.map((p) => new URL(p, 'http://x').searchParams.get('after_token')),
    [null, 't1', 't2'],
  );
  const seen: number[][] = [];
  await paged(pages).api.forEachChargePage({ from: now - 30 * DAY, to: now }, (r) => seen.push(r.map((c) => c.amount)));
  assert.deepEqual(seen, [[1, 2], [3], [4, 5]], 'each page handed on once, as it came');
});

test('the spending store sums page by page: many large pages leave sums only, instances capped', async () => {
  const pages = Array.from({ length: 40 }, (_, p) => Array.from({ length: 500 }, (_, i) => charge(p * 500 + i + 1)));
  let handed = 0;
  const api = {
    forEachChargePage: async (_q: unknown, onPage: (rows: readonly Charge[]) => void) => {
      for (const page of pages) {
        handed++;
        onPage(page);
      }
    },
    listCharges: () => assert.fail('the store must not collect the rows'),
  } as unknown as ServiceApi;
  const s = (await new SpendingStore({ api: async () => api, now: () => now, warn: () => assert.fail('no warning') }).refresh())!;
  assert.equal(handed, 40);
  assert.equal(s.rows, 20_000);
  const all = (20_000 * 20_001) / 2;
  assert.ok(Math.abs(s.last30 - all) < 1e-3, 'every row summed');
  assert.equal(s.byInstance.size, MAX_INSTANCES, 'one sum per instance, up to the cap');
  const perInstance = [...s.byInstance.values()].reduce((a, v) => a + v, 0);
  assert.ok(Math.abs(perInstance + s.other - all) < 1e-3, 'instances past the cap are counted under Other, not dropped');
  assert.ok(s.storageByInstance.size <= MAX_INSTANCES && s.labels.size <= MAX_INSTANCES);
  assert.equal(s.days.length, 30);
  const arrays = Object.entries(s)
    .filter(([, v]) => Array.isArray(v))
    .map(([k]) => k);
  assert.deepEqual(arrays, ['days'], 'no list of rows is kept');
});

test('a hostile page of many charge types per day keeps a bounded breakdown; the total stays exact', () => {
  const sum = new SpendingSum(now);
  sum.add(Array.from({ length: 1000 }, (_, i) => ({ ...charge(20), type: `t${i}`, amount: 1 })));
  const today = sum.result().days.at(-1)!;
  assert.equal(today.total, 1000);
  assert.ok(Object.keys(today.byType).length <= 8);
});

let h: Harness;
useHarness({ instances: 0 }, (x) => (h = x));

test('against the simulator: a walk of several pages of 100 sums to what the instances cost', async () => {
  await h.ctl.seed({ instances: 40 });
  await h.ctl.advance(3 * DAY);
  const api = h.client();
  const at = await h.ctl.now();
  // The simulator's clock runs with the wall clock: on a busy machine the instances cost a little
  // more by the time the list is read, so each sum lies between the costs read before and after.
  const cost = async () => new Map((await api.listInstances({ columns: 'all' })).instances.map((i) => [i.id, i.total_cost ?? 0]));
  const before = await cost();
  const n = h.sim.state.requests.length;
  const s = (await new SpendingStore({ api: async () => api, now: () => at, warn: () => undefined }).refresh())!;
  const pages = h.sim.state.requests.slice(n).filter((r) => r.path === '/api/v0/charges/').length;
  assert.ok(pages >= 2, `${s.rows} rows in ${pages} pages: several pages`);
  const after = await cost();
  assert.equal(after.size, 40);
  for (const [id, hi] of after) {
    const got = s.byInstance.get(id) ?? 0;
    const lo = before.get(id) ?? 0;
    assert.ok(got > lo - 1e-3 && got < hi + 1e-3, `instance ${id}: charges ${got} within total_cost ${lo} … ${hi}`);
  }
});
