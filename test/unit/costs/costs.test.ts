import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { computeRate, currentRate, formatMoney, formatRate, storageRate } from '../../../src/core/rates';
import { formatHours, hoursOfCreditLeft, isCreditLow, summarizeCosts } from '../../../src/costs/costs';
import { instanceIn } from '../../kit/fixtures';
import { CostLedger, CostNotesImpl, costSoFarLine, integrate } from '../../../src/costs/costLedger';

const running = (id: number, dph: number, storage: number): Instance => ({
  id,
  state: 'running',
  actual_status: 'running',
  intended_status: 'running',
  dph_total: dph,
  storage_cost: storage,
  instance: { totalHour: dph, diskHour: storage },
});
// After a user stop the wire keeps dph_total; the storage-only rate is instance.totalHour.
const stopped = (id: number, dph: number, storage: number): Instance => ({
  id,
  state: 'stopped',
  actual_status: 'exited',
  intended_status: 'stopped',
  dph_total: dph,
  storage_cost: storage,
  instance: { totalHour: storage, diskHour: storage, gpuCostPerHour: 0 },
});

test('running $/h is summed; stopped instances count only their storage', () => {
  const list = [running(1, 0.5, 0.02), running(2, 1.34, 0.03), stopped(3, 2.0, 0.05)];
  const s = summarizeCosts(list, 100);
  assert.equal(s.running, 2);
  assert.equal(s.stopped, 1);
  assert.equal(Number(s.activePerHour.toFixed(4)), 1.84);
  assert.equal(Number(s.idleStoragePerHour.toFixed(4)), 0.05);
  assert.equal(Number(s.totalPerHour.toFixed(4)), 1.89);
  assert.equal(formatRate(s.activePerHour), '$1.84/h');
  assert.equal(currentRate(list[2] as Instance), 0.05, 'not the unchanged dph_total of a stopped instance');
});

test("the service's spend-rate (stopped disks and volumes included) is the total where known, and the credit's hours are counted at it", () => {
  const list = [running(1, 0.5, 0.02), stopped(3, 2.0, 0.05)];
  const s = summarizeCosts(list, 10, 0.6);
  assert.equal(s.totalPerHour, 0.6);
  assert.equal(s.hoursLeft, 10 / 0.6);
  assert.equal(Number(s.activePerHour.toFixed(4)), 0.5, 'the per-instance parts stay what the list says');
  assert.equal(Number(summarizeCosts(list, 10).totalPerHour.toFixed(4)), 0.55, 'computed without it');
  assert.equal(summarizeCosts(list, 10, 0).totalPerHour, 0, 'a service figure of 0 is a figure');
});

test('failed instances (exited while intended running) bill storage only', () => {
  const crashed: Instance = { ...running(4, 1, 0.04), state: 'exited', actual_status: 'exited', instance: { totalHour: 0.04 } };
  assert.equal(storageRate(crashed), 0.04);
  assert.equal(summarizeCosts([crashed], 10).running, 0);
});

test('hours of credit left at the current burn', () => {
  assert.equal(hoursOfCreditLeft(20, 2), 10);
  assert.equal(hoursOfCreditLeft(-5, 2), 0);
  assert.equal(hoursOfCreditLeft(20, 0), undefined, 'nothing billed: never runs out');
  assert.equal(hoursOfCreditLeft(undefined, 2), undefined);
  const s = summarizeCosts([running(1, 2, 0.1)], 10);
  assert.equal(s.hoursLeft, 5);
  assert.equal(isCreditLow(s, 6), true);
  assert.equal(isCreditLow(s, 5), false);
  assert.equal(isCreditLow(s, 0), false, '0 disables the warning');
});

test('a tiny but non-zero rate never reads as free', () => {
  assert.equal(formatRate(0), '$0.00/h');
  assert.equal(formatRate(0.003), '<$0.01/h');
  assert.equal(formatRate(0.005), '$0.01/h');
  assert.equal(formatRate(0.0004, 3), '<$0.001/h');
  assert.equal(formatRate(0.25, 3), '$0.250/h');
});

test('which field is the storage rate: instance.totalHour while stopped, storage_cost (else diskHour) while billed for compute', () => {
  // A running instance's instance.totalHour is its whole rate, not its storage.
  assert.equal(storageRate(running(1, 0.5, 0.02)), 0.02);
  assert.equal(storageRate({ ...running(1, 0.5, 0.02), storage_cost: undefined }), 0.02, 'diskHour when the list has no storage_cost');
  assert.equal(storageRate({ ...running(1, 0.5, 0.02), storage_cost: 0.03 }), 0.03, 'storage_cost before diskHour');
  assert.equal(storageRate(instanceIn(1, 'running')), 0, 'no figure at all: 0, not a crash');
  // Stopped: the storage-only rate is instance.totalHour, even where storage_cost says otherwise.
  const st = stopped(2, 2.0, 0.05);
  assert.equal(storageRate({ ...st, storage_cost: 0.04 }), 0.05);
  assert.equal(storageRate(instanceIn(2, 'stopped', { storage_cost: 0.04 })), 0.04, 'without instance: storage_cost');
  assert.equal(storageRate(instanceIn(2, 'stopped', { instance: { diskHour: 0.06 } })), 0.06, 'then diskHour');
  assert.equal(storageRate(instanceIn(2, 'stopped')), 0);
});

test('a rate field that is not a finite number is skipped for the next one', () => {
  assert.equal(currentRate({ ...running(1, 0.5, 0.02), dph_total: Number.NaN, instance: { totalHour: 0.7 } }), 0.7);
  assert.equal(currentRate({ ...running(1, 0.5, 0.02), dph_total: Number.POSITIVE_INFINITY, instance: { totalHour: 0.7 } }), 0.7);
  assert.equal(currentRate({ ...running(1, 0.5, 0.02), instance: { totalHour: 0.7 } }), 0.5, 'dph_total first');
  assert.equal(currentRate(instanceIn(1, 'running', { instance: { totalHour: 0.7 } })), 0.7);
  assert.equal(currentRate(instanceIn(1, 'running')), 0);
});

test('compute rate: the current rate less storage while billed for compute, 0 while stopped', () => {
  assert.equal(Number(computeRate(running(1, 0.5, 0.02)).toFixed(4)), 0.48);
  assert.equal(computeRate(stopped(2, 2.0, 0.05)), 0);
  assert.equal(computeRate({ ...running(3, 0.01, 0.02) }), 0, 'never negative');
});

test('counts: running, active (billed for compute, e.g. loading) and stopped', () => {
  const s = summarizeCosts([running(1, 0.5, 0.02), instanceIn(2, 'loading', { dph_total: 0.3 }), stopped(3, 2, 0.05)], undefined);
  assert.deepEqual([s.running, s.active, s.stopped], [1, 2, 1]);
  assert.equal(Number(s.activePerHour.toFixed(4)), 0.8);
  assert.equal(s.hoursLeft, undefined, 'no credit known');
});

test('credit that is not a finite number gives no hours left', () => {
  assert.equal(hoursOfCreditLeft(Number.NaN, 2), undefined);
  assert.equal(hoursOfCreditLeft(Number.POSITIVE_INFINITY, 2), undefined);
});

test('money and durations as the status bar writes them', () => {
  assert.equal(formatMoney(12.345), '$12.35');
  assert.equal(formatMoney(-1.5), '-$1.50');
  assert.equal(formatMoney(0), '$0.00');
  assert.equal(formatHours(0.5), '30 min');
  assert.equal(formatHours(-0.2), '0 min');
  assert.equal(formatHours(1), '1.0 h');
  assert.equal(formatHours(9.55), '9.6 h');
  assert.equal(formatHours(10), '10 h');
  assert.equal(formatHours(47), '47 h');
  assert.equal(formatHours(48), '2.0 days');
  assert.equal(formatHours(84), '3.5 days');
});

// ---- money already spent: the ledger of rates seen -------------------------------------

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 24, 8, 0, 0);
const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);

test('integrate: each rate holds until the next sample', () => {
  const samples = [
    { at: T0, rate: 1 },
    { at: T0 + H, rate: 0.1 },
    { at: T0 + 3 * H, rate: 2 },
  ];
  near(integrate(samples, T0, T0 + 4 * H), 1 + 0.2 + 2, 'whole span');
  near(integrate(samples, T0 + 0.5 * H, T0 + 1.5 * H), 0.5 + 0.05, 'a window inside');
  near(integrate(samples, T0 - H, T0), 0, 'before the first sample nothing is known');
});

test('cost so far across stop and start: compute while running, storage only while stopped (estimate)', () => {
  const ledger = new CostLedger();
  const a = { ...running(7, 0.5, 0.02), start_date: T0 / 1000 };
  ledger.observe([a], T0);
  ledger.observe([a], T0 + H); // unchanged rate: one hour at $0.50
  const s = { ...stopped(7, 0.5, 0.02), start_date: T0 / 1000 };
  ledger.observe([s], T0 + 2 * H); // stop noticed: the second hour still ran
  ledger.observe([a], T0 + 5 * H); // started again after 3 h stopped at $0.02
  const c = ledger.costSoFar(a, T0 + 6 * H)!;
  assert.equal(c.estimate, true);
  assert.equal(c.since, T0);
  near(c.amount, 0.5 * 2 + 0.02 * 3 + 0.5 * 1, 'run 2 h, stopped 3 h, run 1 h');
  assert.equal(ledger.costSoFar(running(8, 1, 0), T0), undefined, 'never seen: no figure');
});

test('a rate change (a new bid) applies from the poll that saw it', () => {
  const ledger = new CostLedger();
  ledger.observe([running(9, 0.3, 0.01)], T0);
  ledger.observe([running(9, 0.45, 0.01)], T0 + 2 * H);
  near(ledger.costSoFar(running(9, 0.45, 0.01), T0 + 3 * H)!.amount, 0.3 * 2 + 0.45, '2 h at 0.30, 1 h at 0.45');
});

test("the service's own running total wins and is not an estimate", () => {
  const ledger = new CostLedger();
  const i = { ...running(10, 0.5, 0.02), total_cost: 3.25 };
  ledger.observe([i], T0);
  assert.deepEqual(ledger.costSoFar(i, T0 + H), { amount: 3.25, estimate: false });
});

test('spent today: started today counts whole, started yesterday counts from midnight, destroyed ones stay counted', () => {
  const midnight = T0 - 8 * H;
  const ledger = new CostLedger();
  // Started yesterday 22:00 at $1/h, first seen at 08:00: the 8 h since midnight are assumed at the first rate.
  const old = { ...running(1, 1, 0), start_date: (midnight - 2 * H) / 1000 };
  // Started today, service totals: all of it is today's, exactly.
  const fresh = { ...running(2, 0.5, 0), start_date: (T0 - H) / 1000, total_cost: 0.5 };
  ledger.observe([old, fresh], T0);
  ledger.observe([old, { ...fresh, total_cost: 1.0 }], T0 + H);
  // Instance 2 destroyed at 09:00 + 1 h: it leaves the list; its cost stays in today's total.
  ledger.observe([old], T0 + 2 * H);
  const today = ledger.spentSince(midnight, T0 + 2 * H);
  near(today.amount, 8 * 1 + 2 * 1 + 1.0, 'old: 10 h at $1; fresh: its final service total');
  assert.equal(today.estimate, true, 'part of it is assumed');
  // Nothing accrues for a destroyed instance afterwards.
  near(ledger.spentSince(midnight, T0 + 3 * H).amount, 11 + 1, 'only the old one keeps billing');
  // A new day: yesterday's destroyed instance is forgotten, the running one counts from the new midnight.
  ledger.prune(midnight + 24 * H);
  near(ledger.spentSince(midnight + 24 * H, midnight + 25 * H).amount, 1, 'one hour into the new day');
});

test('spent today from service totals: what the total grew by since a sample before midnight', () => {
  const midnight = T0;
  const ledger = new CostLedger();
  const i = (total: number) => ({ ...running(3, 1, 0), start_date: (T0 - 10 * H) / 1000, total_cost: total });
  ledger.observe([i(9)], T0 - H);
  ledger.observe([i(12)], T0 + 2 * H);
  // Before midnight the total was 9 + 1 h at $1 (assumed) = 10; since then it grew to 12.
  const today = ledger.spentSince(midnight, T0 + 2 * H);
  near(today.amount, 2, 'growth since midnight');
});

test('the sentences the views show: the service figure plain, an estimate labelled with its start', () => {
  assert.equal(costSoFarLine({ amount: 3.256, estimate: false }), 'Cost so far: $3.26');
  assert.equal(
    costSoFarLine({ amount: 1.2, estimate: true, since: T0 }, () => '08:00'),
    'Cost so far: ≈ $1.20 (estimate from the rates seen since 08:00)',
  );
  assert.equal(costSoFarLine(undefined), undefined);
  const notes = new CostNotesImpl();
  notes.observe([{ ...running(1, 1, 0), total_cost: 2.5, start_date: Date.now() / 1000 - 60 }], Date.now());
  assert.equal(notes.line({ ...running(1, 1, 0), total_cost: 2.5 }, Date.now()), 'Cost so far: $2.50');
  assert.equal(notes.today(Date.now()), 'Spent today: $2.50', 'started today with a service total: exact');
});
