// The budget warning's action (src/billing/budgetAction.ts), run end to end with scripted
// answers: "Stop N Guarded Instances…" stops only running instances of this account that carry
// our idle guard, after the user agreed, and re-checks the list before each stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetAction, stopGuardedLabel, type BudgetDeps } from '../../../src/billing/budgetAction';
import type { Instance } from '../../../src/api/types';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { MemoryState } from '../../kit/state';

const GUARD = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
const now = Date.parse('2026-11-20T00:00:00Z') / 1000;
const inst = (id: number, state: string, guarded: boolean): Instance =>
  ({ id, state, label: `i${id}`, onstart: guarded ? GUARD : 'echo hi' }) as unknown as Instance;

function deps(list: Instance[], answers: { warn?: (buttons: readonly string[]) => string | undefined; confirm?: boolean }, over: Partial<BudgetDeps> = {}) {
  const stopped: number[] = [];
  const asked: string[][] = [];
  const d: BudgetDeps = {
    monthly: 100,
    onExceeded: 'stopGuarded',
    spent: 120,
    ratePerHour: 3,
    nowS: now,
    state: new MemoryState(),
    instances: () => list,
    name: (i) => i.label ?? `#${i.id}`,
    stop: async (id) => void stopped.push(id),
    showSpending: () => undefined,
    stopAllRunning: () => assert.fail('not chosen'),
    prompts: {
      warn: async (_m, buttons) => (asked.push([...buttons]), answers.warn?.(buttons)),
      confirmStop: async () => answers.confirm ?? false,
    },
    ...over,
  };
  return { d, stopped, asked };
}

test('Stop N Guarded stops exactly the running, guarded instances of the list, after the user agreed', async () => {
  const list = [inst(1, 'running', false), inst(2, 'stopped', true), inst(3, 'running', true), inst(4, 'loading', true), inst(5, 'running', true)];
  const { d, stopped, asked } = deps(list, { warn: (b) => b[0], confirm: true });
  const out = await budgetAction(d);
  assert.equal(asked[0]![0], stopGuardedLabel(2));
  assert.deepEqual(out, { level: 100, action: 'stopped', stopped: [3, 5] });
  assert.deepEqual(stopped, [3, 5]);
});

test('declined: nothing stopped; the warning is remembered for the month', async () => {
  const { d, stopped } = deps([inst(3, 'running', true)], { warn: (b) => b[0], confirm: false });
  assert.deepEqual(await budgetAction(d), { level: 100, action: 'declined' });
  assert.deepEqual(stopped, []);
  assert.equal(await budgetAction(d), undefined, 'once per level and month');
});

test('the list is read again after the prompts: one that stopped, lost its guard or left the account is left alone', async () => {
  let list = [inst(3, 'running', true), inst(5, 'running', true), inst(6, 'running', true)];
  const { d, stopped } = deps(list, {}, {});
  d.prompts.warn = async (_m, b) => b[0];
  d.prompts.confirmStop = async () => {
    list = [inst(3, 'stopped', true), inst(5, 'running', false), inst(7, 'running', true)];
    return true;
  };
  d.instances = () => list;
  assert.deepEqual(await budgetAction(d), { level: 100, action: 'stopped', stopped: [] });
  assert.deepEqual(stopped, [], 'not 7 either: it was never offered');
});

test('without stopGuarded, or without guarded instances, no stop is offered; under 80 % nothing is shown', async () => {
  const warn = deps([inst(3, 'running', true)], { warn: () => undefined }, { onExceeded: 'warn' });
  await budgetAction(warn.d);
  assert.deepEqual(warn.asked, [['Show Spending', 'Stop All Running…']]);
  const none = deps([inst(1, 'running', false)], { warn: () => undefined });
  await budgetAction(none.d);
  assert.deepEqual(none.asked, [['Show Spending', 'Stop All Running…']]);
  const low = deps([inst(3, 'running', true)], {}, { spent: 50 });
  assert.equal(await budgetAction(low.d), undefined);
  assert.deepEqual(low.asked, []);
  const at80 = deps([inst(3, 'running', true)], { warn: (b) => b[0] }, { spent: 85 });
  assert.deepEqual(await budgetAction(at80.d), { level: 80, action: 'spending' });
  assert.deepEqual(at80.asked, [['Show Spending']]);
  assert.deepEqual(at80.stopped, []);
});

test('regression (property search, seed 987): a list that repeats a row offers and stops that instance once', async () => {
  const { d, stopped, asked } = deps([inst(1, 'running', true), inst(1, 'running', true)], { warn: (b) => b[0], confirm: true });
  assert.deepEqual(await budgetAction(d), { level: 100, action: 'stopped', stopped: [1] });
  assert.equal(asked[0]![0], stopGuardedLabel(1));
  assert.deepEqual(stopped, [1]);
});
