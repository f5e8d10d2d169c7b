// The money decisions of src/billing/priceDecision.ts and budgetAction.ts, rule by rule, each
// written to fail if one small change were planted there (the `billing` mutation group,
// BENCHMARKS.md): which arguments name what, what Review offers, a failed read, figures that keep
// changing, a refused decision, and each button of the budget warning. Scripted answers, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { Instance, PendingPriceIncrease } from '../../../src/api/types';
import { BUDGET_WARNED_KEY } from '../../../src/core/stateKeys';
import { budgetAction, stopGuardedLabel, stopAllRunningLabel, showSpendingLabel, type BudgetDeps } from '../../../src/billing/budgetAction';
import { decideIncrease, decisionTarget, type Decision, type DecisionDeps, type DecisionVerb, type ShownIncrease } from '../../../src/billing/priceDecision';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { MemoryState } from '../../kit/state';

test('decisionTarget: what each kind of argument names', () => {
  assert.deepEqual(decisionTarget(7), { increaseId: 7 });
  assert.deepEqual(decisionTarget(null), {});
  assert.deepEqual(decisionTarget('7'), {});
  assert.deepEqual(decisionTarget(Object.assign(() => 0, { id: 3 })), {}, 'a function is no row');
  assert.deepEqual(decisionTarget({ pending_price_increase_id: 5 }), { increaseId: 5 }, 'no figures without the contract');
  const shown = { pending_price_increase_id: 5, contract_id: 9 };
  assert.deepEqual(decisionTarget(shown), { increaseId: 5, shown });
  assert.ok(Number.isNaN(decisionTarget({ pending_price_increase_id: '5' }).increaseId), 'a text id is no id: never taken for another');
  assert.deepEqual(decisionTarget({ id: 4 }), { instanceId: 4 });
  assert.deepEqual(decisionTarget({ id: '4' }), {});
  assert.deepEqual(decisionTarget({ instance: { id: 4 } }), { instanceId: 4 });
  assert.deepEqual(decisionTarget({ instance: { id: '4' } }), {});
  assert.deepEqual(decisionTarget({ instance: null }), {});
});

const inc = (id: number, contract: number, gpuNew = 2): PendingPriceIncrease => ({
  pending_price_increase_id: id,
  contract_id: contract,
  old_gpu_costpersec: 1 / 3600,
  new_gpu_costpersec: gpuNew / 3600,
});

interface Run {
  deps: DecisionDeps;
  sent: Array<[Decision, number]>;
  confirms: Array<{ shown: ShownIncrease; offer: readonly Decision[] }>;
  picks: ShownIncrease[][];
  infos: string[];
  errors: string[];
}

/** `reads` answers each read in turn (the last one again); a function throws or changes the rows. */
function run(
  reads: Array<PendingPriceIncrease[] | (() => PendingPriceIncrease[])>,
  answer: (s: ShownIncrease, n: number) => Decision | undefined,
  send?: () => Promise<unknown>,
): Run {
  const r: Run = { sent: [], confirms: [], picks: [], infos: [], errors: [], deps: undefined as unknown as DecisionDeps };
  let n = 0;
  r.deps = {
    read: async () => {
      const x = reads[Math.min(n++, reads.length - 1)]!;
      return typeof x === 'function' ? x() : x;
    },
    instance: () => undefined,
    name: (id) => `#${id}`,
    send: async (how, id) => (r.sent.push([how, id]), send?.()),
    log: () => undefined,
    prompts: {
      pick: async (c) => (r.picks.push([...c]), c[1]),
      confirm: async (shown, offer) => {
        r.confirms.push({ shown, offer });
        if (r.confirms.length > 10) throw new Error('asked more than 10 times');
        return answer(shown, r.confirms.length);
      },
      info: (m) => r.infos.push(m),
      done: (m) => r.infos.push(m),
      error: (m) => r.errors.push(m),
    },
  };
  return r;
}
const decide = (r: Run, verb: DecisionVerb, arg?: unknown) => decideIncrease(r.deps, verb, decisionTarget(arg));
const fail = (): never => {
  throw new Error('connection reset');
};

test('Review offers Accept and Reject; the pick shows each increase as unchanged', async () => {
  const r = run([[inc(1, 10), inc(2, 20)]], () => 'reject');
  assert.equal(await decide(r, 'review'), 'rejected');
  assert.deepEqual(
    r.picks[0]!.map((s) => [s.id, s.changed]),
    [
      [1, false],
      [2, false],
    ],
  );
  assert.deepEqual(r.confirms[0]!.offer, ['accept', 'reject']);
  assert.deepEqual(r.sent, [['reject', 2]]);
});

test('Reject… offers Reject only, and sends it', async () => {
  const r = run([[inc(1, 10)]], () => 'reject');
  assert.equal(await decide(r, 'reject', 1), 'rejected');
  assert.deepEqual(r.confirms[0]!.offer, ['reject']);
  assert.deepEqual(r.sent, [['reject', 1]]);
  assert.match(r.infos.at(-1)!, /Rejected the new price of #10/);
});

test('nothing pending: said for the instance named, or in general', async () => {
  const forRow = run([[inc(1, 10)]], () => 'accept');
  assert.equal(await decide(forRow, 'accept', { id: 11 }), 'cancelled');
  assert.deepEqual(forRow.infos, ['No price increase is pending for #11.']);
  const none = run([[]], () => 'accept');
  assert.equal(await decide(none, 'accept'), 'cancelled');
  assert.deepEqual(none.infos, ['No price increase is pending.']);
});

test('a list that cannot be read, before or after the prompt: failed, nothing sent', async () => {
  const before = run([fail], () => 'accept');
  assert.equal(await decide(before, 'accept', 1), 'failed');
  assert.match(before.errors[0]!, /Could not read the pending price increases: .*connection reset/);
  const after = run([[inc(1, 10)], fail], () => 'accept');
  assert.equal(await decide(after, 'accept', 1), 'failed');
  assert.equal(after.confirms.length, 1);
  assert.deepEqual(after.sent, []);
});

test('dismissed, or answered with a decision the prompt did not offer: cancelled, nothing sent', async () => {
  const dismissed = run([[inc(1, 10)]], () => undefined);
  assert.equal(await decide(dismissed, 'accept', 1), 'cancelled');
  const other = run([[inc(1, 10)]], () => 'reject');
  assert.equal(await decide(other, 'accept', 1), 'cancelled');
  assert.deepEqual([...dismissed.sent, ...other.sent], []);
});

test('figures that change at every read: asked three times, then nothing is sent', async () => {
  let price = 2;
  const r = run([() => [inc(1, 10, price++)]], () => 'accept');
  assert.equal(await decide(r, 'accept', 1), 'cancelled');
  assert.equal(r.confirms.length, 3);
  assert.deepEqual(
    r.confirms.map((c) => c.shown.changed),
    [false, true, true],
  );
  assert.match(r.infos.at(-1)!, /kept changing while you decided; nothing was sent/);
  assert.deepEqual(r.sent, []);
});

test('a decision the service refuses as no longer pending (404 or 409) is stale; any other refusal failed', async () => {
  const refusal = (status: number, code?: string) => () =>
    Promise.reject(new ApiError({ kind: 'http', status, ...(code ? { code } : {}), message: `HTTP ${status}` }));
  for (const status of [404, 409]) {
    const r = run([[inc(1, 10)]], () => 'accept', refusal(status, 'no_pending_price_increase'));
    assert.equal(await decide(r, 'accept', 1), 'stale', String(status));
    assert.match(r.infos.at(-1)!, /Price increase 1 is no longer pending/);
    assert.deepEqual(r.errors, []);
  }
  for (const [send, why] of [
    [refusal(404), '404 without the code'],
    [refusal(400, 'no_pending_price_increase'), 'another status'],
    [() => Promise.reject(Object.assign(new Error('x'), { status: 404, code: 'no_pending_price_increase' })), 'not an ApiError'],
  ] as const) {
    const r = run([[inc(1, 10)]], () => 'accept', send);
    assert.equal(await decide(r, 'accept', 1), 'failed', why);
    assert.match(r.errors[0]!, /Could not accept price increase 1/, why);
  }
});

const GUARD = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
const now = Date.parse('2026-11-20T00:00:00Z') / 1000;
const guarded = (id: number): Instance => ({ id, state: 'running', label: `i${id}`, onstart: GUARD }) as unknown as Instance;

function budget(button: (b: readonly string[]) => string | undefined, over: Partial<BudgetDeps> = {}) {
  const r = { asked: [] as string[][], confirms: 0, spending: 0, stopAll: 0, stopped: [] as number[] };
  const d: BudgetDeps = {
    monthly: 100,
    onExceeded: 'stopGuarded',
    spent: 120,
    ratePerHour: 1,
    nowS: now,
    state: new MemoryState(),
    instances: () => [guarded(1)],
    name: (i) => `#${i.id}`,
    stop: async (id) => void r.stopped.push(id),
    showSpending: () => void r.spending++,
    stopAllRunning: () => void r.stopAll++,
    prompts: { warn: async (_m, b) => (r.asked.push([...b]), button(b)), confirmStop: async () => (r.confirms++, true) },
    ...over,
  };
  return { d, r };
}

test('budget buttons: Show Spending, Stop All Running, a dismissed warning; the stop label counts', async () => {
  assert.equal(stopGuardedLabel(1), 'Stop 1 Guarded Instance…');
  assert.equal(stopGuardedLabel(2), 'Stop 2 Guarded Instances…');
  const spending = budget(() => showSpendingLabel());
  assert.deepEqual(await budgetAction(spending.d), { level: 100, action: 'spending' });
  assert.equal(spending.r.spending, 1);
  const all = budget(() => stopAllRunningLabel(), { instances: () => [] });
  assert.deepEqual(await budgetAction(all.d), { level: 100, action: 'none' });
  assert.equal(all.r.stopAll, 1);
  const dismissed = budget(() => undefined);
  assert.deepEqual(await budgetAction(dismissed.d), { level: 100, action: 'none' });
  assert.equal(dismissed.r.confirms, 0, 'a dismissed warning asks nothing more');
  assert.deepEqual(dismissed.r.stopped, []);
});

test('no budget set: no warning; the levels told are remembered per month', async () => {
  const off = budget(() => undefined, { monthly: 0 });
  assert.equal(await budgetAction(off.d), undefined);
  assert.deepEqual(off.r.asked, []);
  const state = new MemoryState();
  await budgetAction(budget(() => undefined, { state, spent: 85 }).d);
  await budgetAction(budget(() => undefined, { state, spent: 120 }).d);
  assert.deepEqual(state.get(BUDGET_WARNED_KEY), { month: '2026-11', levels: [80, 100] });
  await budgetAction(budget(() => undefined, { state, spent: 120, nowS: now + 20 * 86400 }).d);
  assert.deepEqual(state.get(BUDGET_WARNED_KEY), { month: '2026-12', levels: [100] }, 'a new month starts its own list');
});
