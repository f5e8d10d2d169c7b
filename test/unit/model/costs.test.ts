import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { currentRate, formatRate, hoursOfCreditLeft, isCreditLow, storageRate, summarizeCosts } from '../../../src/model/costs';

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
