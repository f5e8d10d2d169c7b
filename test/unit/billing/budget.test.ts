// The monthly budget: levels, the projection to the month's end, once per level and month.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetMessage, checkBudget, guardedRunning, levelToWarn, nextMonthStart } from '../../../src/billing/budget';
import type { Instance } from '../../../src/api/types';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';

const now = Date.parse('2026-11-30T00:00:00Z') / 1000; // one day left in November

test('levels at 80 % and 100 %; none without a budget', () => {
  assert.equal(checkBudget(0, 50, 1, now), undefined);
  assert.equal(checkBudget(100, 79.9, 0, now)!.level, 0);
  assert.equal(checkBudget(100, 80, 0, now)!.level, 80);
  assert.equal(checkBudget(100, 100, 0, now)!.level, 100);
  assert.equal(new Date(nextMonthStart(now) * 1000).toISOString(), '2026-12-01T00:00:00.000Z');
});

test('the running rate is projected to the month end', () => {
  const c = checkBudget(100, 85, 2, now)!;
  assert.equal(c.projected, 85 + 2 * 24);
  assert.equal(c.month, '2026-11');
  assert.equal(
    budgetMessage(c, 2),
    'You have used 85 % of your monthly budget ($85.00 of $100.00 charged in 2026-11). At the current $2.00/h the month ends at about $133.00.',
  );
  assert.match(budgetMessage(checkBudget(100, 120, 0, now)!, 0), /reached your monthly budget/);
});

test('each level once per month; a new month starts over', () => {
  const c = checkBudget(100, 85, 0, now)!;
  assert.equal(levelToWarn(c, undefined), 80);
  assert.equal(levelToWarn(c, { month: '2026-11', levels: [80] }), undefined);
  assert.equal(levelToWarn(checkBudget(100, 101, 0, now)!, { month: '2026-11', levels: [80] }), 100);
  assert.equal(levelToWarn(c, { month: '2026-10', levels: [80, 100] }), 80);
});

test('only running instances with an idle guard are offered to the budget action', () => {
  const guard = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
  const rows = [
    { id: 1, state: 'running', onstart: 'echo hi' },
    { id: 2, state: 'stopped', onstart: guard },
    { id: 3, state: 'running', onstart: guard },
  ] as unknown as Instance[];
  assert.deepEqual(
    guardedRunning(rows).map((i) => i.id),
    [3],
  );
});
