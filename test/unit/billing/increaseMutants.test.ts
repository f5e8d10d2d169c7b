// Pending price increases, rule by rule, each written to fail if one small change were planted in
// src/billing/priceIncreases.ts or increaseNotices.ts (the `billing` mutation group,
// BENCHMARKS.md): the watcher's reads, every figure line of the Review modal, the rounding edges of
// "+10 %" and "+0.1 %", what makes figures "changed", and when the notices' memory is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/events';
import type { Instance, PendingPriceIncrease, ServiceApi } from '../../../src/api/types';
import { PriceIncreaseWatcher, changeText, figuresKey, increaseDetails, increaseFigures, increaseHeadline } from '../../../src/billing/priceIncreases';
import { IncreaseNotices } from '../../../src/billing/increaseNotices';
import { NOTIFIED_INCREASES_KEY } from '../../../src/core/stateKeys';
import { MemoryState } from '../../kit/state';

const inc = (over: Partial<PendingPriceIncrease> = {}): PendingPriceIncrease => ({ pending_price_increase_id: 1, contract_id: 11, ...over });

test('the watcher: nothing before a read; a list walk reads; again from exactly the interval; clear and dispose', async () => {
  const listed = new Emitter<unknown>();
  let now = 1000;
  let fail: string | undefined;
  let reads = 0;
  const warned: string[] = [];
  const api = {
    listPendingPriceIncreases: async () => {
      reads++;
      if (fail) throw new Error(fail);
      return { count: 1, truncated: false, pending_price_increases: [inc({ pending_price_increase_id: 5 })] };
    },
  } as unknown as ServiceApi;
  const w = new PriceIncreaseWatcher({
    api: async () => api,
    onDidListInstances: listed.event,
    intervalMs: () => 100,
    now: () => now,
    warn: (m) => warned.push(m),
  });
  assert.deepEqual(w.pending, []);
  listed.fire(undefined);
  assert.equal(w.fetches, 1, 'a list walk asks for them');
  await w.maybeFetch();
  assert.equal(reads, 1, 'the call after it within the interval joins');
  assert.equal(w.byId(5)?.contract_id, 11);
  assert.equal(w.byId(6), undefined);
  now += 100;
  await w.maybeFetch();
  assert.equal(reads, 2, 'exactly one interval later: read again');
  assert.equal(w.fetches, 2);
  for (const m of ['HTTP 502', 'HTTP 502', 'HTTP 503']) {
    fail = m;
    await w.refresh();
  }
  assert.deepEqual(
    warned.map((m) => m.replace(/.*: /, '')),
    ['HTTP 502', 'HTTP 503'],
    'each failure once',
  );
  fail = undefined;
  w.clear();
  assert.deepEqual(w.pending, []);
  await w.maybeFetch();
  assert.equal(reads, 6, 'after clear the next look reads at once');
  w.dispose();
  now += 1000;
  listed.fire(undefined);
  assert.equal(w.fetches, 6, 'after dispose a list walk no longer asks');
});

test('figures: a part the service left out is no price; a new price left out is the old one; no instance counts as running', () => {
  const f = increaseFigures(
    inc({ old_gpu_costpersec: 1 / 3600, new_gpu_costpersec: null, old_disk_ram_costpersec: undefined, new_disk_ram_costpersec: 0.5 / 3600 }),
    undefined,
  );
  assert.ok(f.running);
  assert.ok(Math.abs(f.oldPerHour - 1) < 1e-9 && Math.abs(f.newPerHour - 1.5) < 1e-9, JSON.stringify(f));
  assert.ok(Math.abs(f.oldPerMonth - 730) < 1e-6 && Math.abs(f.newPerMonth - 1.5 * 730) < 1e-6);
});

test('change text at its rounding edges', () => {
  assert.equal(changeText(13, 14.2935), '+10 %', '9.95 % rounds to 10');
  assert.equal(changeText(2000, 2001), '+0.1 %', 'exactly 0.05 %');
  assert.equal(changeText(10000, 10004), '+<0.1 %');
  assert.equal(changeText(2, 1), '−50 %');
});

test('every figure of the Review modal, and none that is not there', () => {
  const p = inc({
    old_gpu_costpersec: 1 / 3600,
    new_gpu_costpersec: 1.5 / 3600,
    old_disk_ram_costpersec: 0.1 / 3600,
    new_disk_ram_costpersec: 0.1 / 3600,
    old_bwu_cost: 0.01,
    new_bwu_cost: 0.02,
    new_bwd_cost: 0.03,
    old_platform_fee: 0.1234567,
    new_platform_fee: null,
    contract_end_date: 0,
    ask_end_date: null,
  });
  const running = { id: 11, state: 'running' } as Instance;
  assert.deepEqual(increaseDetails(p, 'train', running), [
    'Instance: train (#11)',
    'Per hour: $1.100/h → $1.600/h (+45 %)',
    'Per month at current use (running): $803.00 → $1168.00 (+45 %)',
    'GPU: $1.000/h → $1.500/h (+50 %)',
    'Disk and RAM: $0.1000/h → $0.1000/h',
    'Upload bandwidth: $0.0100/GB → $0.0200/GB (+100 %)',
    'Download bandwidth: none → $0.0300/GB (new charge)',
    'Platform fee: 0.123457 → 0.123457',
    '',
    'Accept: the rental is billed at the new prices from now on.',
    'Reject: the rental keeps its current prices ($1.100/h); rejecting stops or destroys nothing.',
  ]);
  assert.equal(
    increaseHeadline(p, 'train', running),
    'The host of train raises its price: GPU +50 %, upload bandwidth +100 %, download bandwidth: new charge ($1.100/h → $1.600/h).',
  );
  const gpuOnly = increaseDetails(inc({ old_gpu_costpersec: 1 / 3600, new_gpu_costpersec: 2 / 3600 }), 'train', running);
  assert.deepEqual(
    gpuOnly.filter((l) => / → /.test(l)).map((l) => l.split(':')[0]),
    ['Per hour', 'Per month at current use (running)', 'GPU'],
    'a part with no price at all has no line',
  );
  const noHourly = inc({ old_bwu_cost: 0.01, new_bwu_cost: 0.02, ask_end_date: Date.parse('2026-12-01T00:00:00Z') / 1000 });
  assert.equal(increaseHeadline(noHourly, 'train', running), 'The host of train raises its price: upload bandwidth +100 %. Decide by 2026-12-01 00:00 UTC.');
});

test('figures are "changed" when any figure or date differs', () => {
  const base = inc({ old_bwu_cost: 0.01, new_bwu_cost: 0.02, contract_end_date: 100, ask_end_date: 50 });
  for (const over of [{ new_bwu_cost: 0.03 }, { old_bwu_cost: 0.02 }, { contract_end_date: 101 }, { ask_end_date: 51 }])
    assert.notEqual(figuresKey({ ...base, ...over }), figuresKey(base), JSON.stringify(over));
  assert.equal(figuresKey({ ...base }), figuresKey(base));
});

const rows = (...ids: number[]): PendingPriceIncrease[] => ids.map((id) => inc({ pending_price_increase_id: id }));

/** Notices over a state that counts its writes. */
function notices(initial?: unknown) {
  const state = new MemoryState();
  if (initial !== undefined) state.data.set(NOTIFIED_INCREASES_KEY, initial);
  let writes = 0;
  const update = state.update.bind(state);
  state.update = (k, v) => (writes++, update(k, v));
  return { n: new IncreaseNotices(state, () => 'https://a'), state, writes: () => writes };
}

test('the notices memory is written only when the pending set changes', async () => {
  const { n, state, writes } = notices();
  await n.take([]).saved.then(() => undefined);
  assert.equal(writes(), 0, 'nothing pending, nothing remembered: no write');
  await n.take(rows(1, 2)).saved;
  await n.take(rows(1, 2)).saved;
  assert.equal(writes(), 1, 'the same pending set: no second write');
  await n.take(rows(1, 3)).saved;
  assert.deepEqual(state.get(NOTIFIED_INCREASES_KEY), { 'https://a': [1, 3] }, 'same length, other ids');
  await n.take(rows(1)).saved;
  assert.deepEqual(state.get(NOTIFIED_INCREASES_KEY), { 'https://a': [1] }, 'a prefix of what was remembered');
  const junk = notices({ 'https://a': [1, 'x'] });
  assert.equal(junk.n.take(rows(1)).plan, undefined);
  assert.equal(junk.writes(), 0, 'entries that are not ids are not taken for a change');
  assert.equal(notices(null).n.take(rows(1)).plan !== undefined, true, 'a memory of null is no memory');
});

test('the memory keeps the newest 5000 ids; reset forgets what this window told', async () => {
  const { n, state } = notices();
  await n.take(rows(...Array.from({ length: 5001 }, (_, i) => i + 1))).saved;
  const kept = state.get<Record<string, number[]>>(NOTIFIED_INCREASES_KEY)!['https://a']!;
  assert.equal(kept.length, 5000);
  assert.equal(kept[0], 2);
  const fresh = notices();
  fresh.n.decided(9);
  fresh.n.reset();
  assert.ok(fresh.n.take(rows(9)).plan, 'decided in the old connection only: told again');
});
