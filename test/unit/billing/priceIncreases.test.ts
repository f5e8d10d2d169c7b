// The price-increase watcher: at most one request per list interval however many instances
// and list walks, the figures a renter decides on, and which increases are new.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/events';
import { PriceIncreaseWatcher, increaseDetails, increaseFigures, rowMark } from '../../../src/billing/priceIncreases';
import type { Instance, PendingPriceIncrease, ServiceApi } from '../../../src/api/types';

const row = (id: number, contract: number, over: Partial<PendingPriceIncrease> = {}): PendingPriceIncrease => ({
  pending_price_increase_id: id,
  contract_id: contract,
  old_gpu_costpersec: 1 / 3600,
  new_gpu_costpersec: 1.25 / 3600,
  old_disk_ram_costpersec: 0.1 / 3600,
  new_disk_ram_costpersec: 0.1 / 3600,
  contract_end_date: Date.parse('2026-12-24T10:00:00Z') / 1000,
  ask_end_date: Date.parse('2026-12-01T00:00:00Z') / 1000,
  ...over,
});

function fake(rows: PendingPriceIncrease[]) {
  const listed = new Emitter<unknown>();
  let now = 0;
  let calls = 0;
  const api = {
    listPendingPriceIncreases: async () => (calls++, { count: rows.length, truncated: false, pending_price_increases: rows }),
  } as unknown as ServiceApi;
  const w = new PriceIncreaseWatcher({
    api: async () => api,
    onDidListInstances: listed.event,
    intervalMs: () => 10_000,
    now: () => now,
    warn: () => undefined,
  });
  return { w, listed, calls: () => calls, tick: (ms: number) => (now += ms) };
}

test('one request per list interval, however many list walks and instances', async () => {
  const f = fake([row(1, 11), row(2, 12), row(3, 13)]);
  for (let i = 0; i < 5; i++) {
    f.listed.fire(undefined);
    await f.w.maybeFetch();
    f.tick(1000);
  }
  assert.equal(f.calls(), 1, 'five walks within one interval: one request');
  f.tick(6000);
  f.listed.fire(undefined);
  await f.w.maybeFetch();
  assert.equal(f.calls(), 2);
  assert.equal(f.w.pending.length, 3);
  assert.deepEqual(
    f.w.forInstance(12).map((p) => p.pending_price_increase_id),
    [2],
  );
  await f.w.refresh();
  assert.equal(f.calls(), 3, 'refresh (after a decision) asks at once');
});

test('figures: per hour and per month at current use (disk only while stopped), percent, dates', () => {
  const running = { id: 11, state: 'running' } as Instance;
  const stopped = { id: 11, state: 'stopped' } as Instance;
  const f = increaseFigures(row(1, 11), running);
  assert.ok(Math.abs(f.oldPerHour - 1.1) < 1e-9 && Math.abs(f.newPerHour - 1.35) < 1e-9);
  assert.ok(Math.abs(f.newPerMonth - 1.35 * 730) < 1e-6);
  assert.ok(Math.abs(increaseFigures(row(1, 11), stopped).newPerMonth - 0.1 * 730) < 1e-6, 'stopped: storage only');
  assert.equal(rowMark(row(1, 11), running), 'price +23 % pending');
  const d = increaseDetails(row(1, 11), 'train', running).join('\n');
  assert.match(d, /Per hour: \$1\.100\/h → \$1\.350\/h/);
  assert.match(d, /Per month at current use \(running\): \$803\.00 → \$985\.50/);
  assert.match(d, /Contract ends: 2026-12-24 10:00 UTC/);
  assert.match(d, /offered until: 2026-12-01 00:00 UTC/);
});

test('a failed read is reported once and keeps the last rows', async () => {
  const warnings: string[] = [];
  const listed = new Emitter<unknown>();
  let fail = false;
  const api = {
    listPendingPriceIncreases: async () => {
      if (fail) throw new Error('HTTP 404');
      return { count: 1, truncated: false, pending_price_increases: [row(1, 11)] };
    },
  } as unknown as ServiceApi;
  let now = 0;
  const w = new PriceIncreaseWatcher({
    api: async () => api,
    onDidListInstances: listed.event,
    intervalMs: () => 1,
    now: () => (now += 10),
    warn: (m) => warnings.push(m),
  });
  await w.refresh();
  fail = true;
  await w.refresh();
  await w.refresh();
  assert.equal(warnings.length, 1);
  assert.equal(w.pending.length, 1);
});
