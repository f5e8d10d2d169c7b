// Stopped disks end (gpuRental.guard.destroyAfterStoppedDays): which guarded stopped instances
// are warned a day before and destroyed at the end, and what never is (off by default, no guard,
// started again, no warning shown a day before, not listed is no proof it is gone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { DAY_MS, keep, planStopped, stoppedDaysFor, stoppedDaysSetting, type StoppedRecords } from '../../../src/guard/stoppedDays';

const guarded = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
const inst = (id: number, state: string, onstart = guarded) => ({ id, state, onstart, label: `box-${id}` }) as unknown as Instance;
const T = 1_700_000_000_000;

test('the setting: whole days within 1..365, anything else is off', () => {
  assert.equal(stoppedDaysSetting(undefined), 0);
  assert.equal(stoppedDaysSetting(0), 0);
  assert.equal(stoppedDaysSetting(-3), 0);
  assert.equal(stoppedDaysSetting('7'), 0);
  assert.equal(stoppedDaysSetting(NaN), 0);
  assert.equal(stoppedDaysSetting(7.9), 7);
  assert.equal(stoppedDaysSetting(1e9), 365);
});

test('a guarded instance stopped 7 days: warned a day before, destroyed after the day, kept with Keep; started again ends it', () => {
  let records: StoppedRecords = {};
  const step = (list: Instance[], at: number, days = 7) => {
    const p = planStopped(list, records, days, at);
    records = p.records;
    return p;
  };
  // Off: the stop is still recorded (so turning it on later counts from the real stop), nothing else.
  let p = step([inst(1, 'stopped')], T, 0);
  assert.deepEqual(records, { 1: { since: T } });
  assert.equal(p.warn.length + p.destroy.length, 0);
  p = step([inst(1, 'stopped')], T + 6 * DAY_MS - 1);
  assert.equal(p.warn.length, 0, 'not before 6 days');
  p = step([inst(1, 'stopped')], T + 6 * DAY_MS);
  assert.deepEqual(
    p.warn.map((w) => [w.inst.id, w.destroyAt, w.stoppedMs]),
    [[1, T + 7 * DAY_MS, 6 * DAY_MS]],
  );
  p = step([inst(1, 'stopped')], T + 6 * DAY_MS + 1000);
  assert.equal(p.warn.length, 0, 'warned once');
  p = step([inst(1, 'stopped')], T + 7 * DAY_MS - 1);
  assert.equal(p.destroy.length, 0);
  p = step([inst(1, 'stopped')], T + 7 * DAY_MS);
  assert.deepEqual(
    p.destroy.map((i) => i.id),
    [1],
  );
  // Keep: another full period from now, with a new warning.
  records = keep(records, 1, T + 7 * DAY_MS);
  assert.equal(step([inst(1, 'stopped')], T + 8 * DAY_MS).destroy.length, 0);
  assert.equal(step([inst(1, 'stopped')], T + 13 * DAY_MS).warn.length, 1);
  // Started: the record ends; a later stop starts from scratch.
  step([inst(1, 'running')], T + 13 * DAY_MS + 1);
  assert.deepEqual(records, {});
});

test("never without a day's warning: VS Code closed for two weeks warns first, destroys a day later", () => {
  let records: StoppedRecords = { 2: { since: T } };
  let p = planStopped([inst(2, 'stopped')], records, 3, T + 14 * DAY_MS);
  records = p.records;
  assert.equal(p.destroy.length, 0);
  assert.deepEqual(
    p.warn.map((w) => w.destroyAt),
    [T + 15 * DAY_MS],
  );
  p = planStopped([inst(2, 'stopped')], records, 3, T + 15 * DAY_MS - 1);
  assert.equal(p.destroy.length, 0);
  assert.equal(planStopped([inst(2, 'stopped')], p.records, 3, T + 15 * DAY_MS).destroy.length, 1);
});

test('not considered: instances without a guard, running or failed ones; an instance missing from one list keeps its record', () => {
  const p = planStopped([inst(3, 'stopped', 'echo mine'), inst(4, 'running'), inst(5, 'exited')], { 6: { since: T, warnedAt: T } }, 1, T + 30 * DAY_MS);
  assert.deepEqual(Object.keys(p.records), ['6'], 'not listed is no proof it is gone');
  assert.equal(p.warn.length + p.destroy.length, 0);
});

test("an instance rented with the template's guard.destroyAfterStoppedDays uses its own value, whatever the setting (even off)", () => {
  const own = (days: number) =>
    composeOnstart('echo hi', resolveGuardPlan({ destroyAfterStoppedDays: days })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
  const two = inst(7, 'stopped', own(2));
  const thirty = inst(8, 'stopped', own(30));
  assert.deepEqual(stoppedDaysFor(two, 0), { days: 2, own: true });
  assert.deepEqual(stoppedDaysFor(inst(9, 'stopped'), 5), { days: 5, own: false });
  const list = [two, thirty, inst(9, 'stopped')];
  let records: StoppedRecords = planStopped(list, {}, 0, T).records;
  // Setting off: only the instance with its own 2 days is warned after a day, and destroyed after two.
  let p = planStopped(list, records, 0, T + DAY_MS);
  records = p.records;
  assert.deepEqual(
    p.warn.map((w) => [w.inst.id, w.destroyAt]),
    [[7, T + 2 * DAY_MS]],
  );
  p = planStopped(list, records, 0, T + 2 * DAY_MS);
  records = p.records;
  assert.deepEqual(
    p.destroy.map((i) => i.id),
    [7],
  );
  // Setting 5: the other guarded instance follows it; the one with its own 30 days is not cut short by it.
  p = planStopped(list, records, 5, T + 4 * DAY_MS);
  records = p.records;
  assert.deepEqual(
    p.warn.map((w) => w.inst.id),
    [9],
  );
  p = planStopped(list, records, 5, T + 29 * DAY_MS);
  assert.deepEqual(
    p.warn.map((w) => [w.inst.id, w.destroyAt]),
    [[8, T + 30 * DAY_MS]],
  );
});
