// Property-based search (fast-check) over the money decisions of billing: generated sets of
// pending increases, hosts that add, withdraw and change increases between any two reads, stale
// ids, instance ids, instance rows and notifications with old figures, and any user answers.
// Checked after each run: only an id the user was shown in the prompt just answered is sent, with
// the figures the service has for it, with exactly {"pending_price_increase_id": id}, at most once
// per command, never after Escape. And the budget's stop action: only guarded, running, listed
// instances that were offered, only after the user agreed. Fixed seed, small budget (seconds);
// FUZZ_SEED and FUZZ_RUNS (as for the create flow's search) run a longer search with another seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as z from 'zod/mini';
import * as Schemas from '../../../src/api/schemas';
import { ApiError } from '../../../src/api/errors';
import { billingCalls, type BillingEndpoint } from '../../../src/api/billingApi';
import type { Instance, PendingPriceIncrease } from '../../../src/api/types';
import { decideIncrease, decisionTarget, type Decision, type DecisionVerb, type ShownIncrease } from '../../../src/billing/priceDecision';
import { figuresKey } from '../../../src/billing/priceIncreases';
import { budgetAction, stopGuardedLabel } from '../../../src/billing/budgetAction';
import { guardedRunning } from '../../../src/billing/budget';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { MemoryState } from '../../kit/state';

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 334;
const RUNS = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : 150;

type HostMove =
  { kind: 'none' } | { kind: 'add'; contract: number; factor: number } | { kind: 'withdraw'; pick: number } | { kind: 'change'; pick: number; factor: number };

/** A service with pending increases, answering through the real client's billing calls and schemas. */
class Service {
  pending: PendingPriceIncrease[] = [];
  nextId = 500;
  puts: Array<{ path: string; body: unknown; figures: string | undefined }> = [];
  constructor(private readonly moves: HostMove[]) {}

  add(contract: number, factor: number): PendingPriceIncrease {
    const p = {
      pending_price_increase_id: this.nextId++,
      contract_id: contract,
      old_gpu_costpersec: 0.0003,
      new_gpu_costpersec: 0.0003 * factor,
      old_bwu_cost: 0.01,
      new_bwu_cost: 0.01 * factor,
    };
    this.pending.push(p);
    return p;
  }

  /** A host acts before each read. */
  private move(): void {
    const m = this.moves.shift() ?? { kind: 'none' };
    if (m.kind === 'add') this.add(m.contract, m.factor);
    else if (m.kind === 'withdraw' && this.pending.length) this.pending.splice(m.pick % this.pending.length, 1);
    else if (m.kind === 'change' && this.pending.length) {
      const i = m.pick % this.pending.length;
      this.pending[i] = { ...this.pending[i]!, new_gpu_costpersec: 0.0003 * m.factor };
    }
  }

  readonly api = billingCalls({
    send: async <T>(ep: BillingEndpoint<T>): Promise<T> => {
      if (ep.method === 'GET') {
        this.move();
        return z.parse(ep.schema(Schemas), {
          success: true,
          count: this.pending.length,
          truncated: false,
          pending_price_increases: this.pending.map((p) => ({ ...p })),
        });
      }
      const id = (ep.body as { pending_price_increase_id: number }).pending_price_increase_id;
      const p = this.pending.find((x) => x.pending_price_increase_id === id);
      this.puts.push({ path: ep.path, body: ep.body, figures: p && figuresKey(p) });
      if (!p) throw new ApiError({ kind: 'http', status: 404, code: 'no_pending_price_increase', message: 'no pending price increase' });
      this.pending = this.pending.filter((x) => x !== p);
      return z.parse(ep.schema(Schemas), { success: true });
    },
    validate: async (_name, schema, body) => void z.parse(schema(Schemas), body),
  });
}

const move: fc.Arbitrary<HostMove> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({ kind: fc.constant('add' as const), contract: fc.integer({ min: 1, max: 4 }), factor: fc.constantFrom(1.1, 1.5, 2) }),
  fc.record({ kind: fc.constant('withdraw' as const), pick: fc.nat(9) }),
  fc.record({ kind: fc.constant('change' as const), pick: fc.nat(9), factor: fc.constantFrom(1.2, 3) }),
);
const argKind = fc.constantFrom('none', 'pendingId', 'staleId', 'instanceIdNumber', 'instanceRow', 'notification', 'notificationOld');
const command = fc.record({
  verb: fc.constantFrom<DecisionVerb>('accept', 'reject', 'review'),
  arg: argKind,
  pick: fc.nat(5),
  answers: fc.array(fc.constantFrom<Decision | undefined>('accept', 'reject', undefined), { minLength: 1, maxLength: 4 }),
  moves: fc.array(move, { maxLength: 4 }),
});

test('price-increase decisions: only an id shown in the prompt just answered is sent, with its current figures and exactly the body', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 6 }),
      fc.array(command, { minLength: 1, maxLength: 5 }),
      async (initial, commands) => {
        const moves: HostMove[] = [];
        const svc = new Service(moves);
        for (const c of initial) svc.add(c, 1.25);
        const decided = new Set<number>();
        for (const cmd of commands) {
          moves.splice(0, moves.length, ...cmd.moves);
          const first = svc.pending[cmd.pick % Math.max(1, svc.pending.length)];
          const staleId = decided.size ? [...decided][0]! : 9999;
          const arg =
            cmd.arg === 'pendingId'
              ? first?.pending_price_increase_id
              : cmd.arg === 'staleId'
                ? staleId
                : cmd.arg === 'instanceIdNumber'
                  ? first?.contract_id
                  : cmd.arg === 'instanceRow'
                    ? { id: first?.contract_id ?? 1 }
                    : cmd.arg === 'notification'
                      ? first
                      : cmd.arg === 'notificationOld' && first
                        ? { ...first, new_gpu_costpersec: 0.0009 }
                        : undefined;
          const answers = [...cmd.answers];
          let lastShown: { shown: ShownIncrease; answer: Decision | undefined; offer: readonly Decision[] } | undefined;
          const before = svc.puts.length;
          const result = await decideIncrease(
            {
              read: async () => (await svc.api.listPendingPriceIncreases()).pending_price_increases,
              instance: () => undefined,
              name: (id) => `#${id}`,
              send: (how, id) => (how === 'accept' ? svc.api.acceptPriceIncrease(id) : svc.api.rejectPriceIncrease(id)),
              log: () => undefined,
              prompts: {
                pick: async (choices) => choices[cmd.pick % choices.length],
                confirm: async (shown, offer) => {
                  const answer = answers.shift();
                  lastShown = { shown, answer, offer };
                  return answer;
                },
                info: () => undefined,
                done: () => undefined,
                error: () => undefined,
              },
            },
            cmd.verb,
            decisionTarget(arg),
          );
          const sent = svc.puts.slice(before);
          assert.ok(sent.length <= 1, 'at most one decision per command');
          if (typeof arg === 'number' && !sent.length && result === 'stale') continue;
          if (!sent.length) {
            assert.ok(result !== 'accepted' && result !== 'rejected');
            continue;
          }
          const put = sent[0]!;
          assert.ok(lastShown, 'nothing is sent without a prompt showing it');
          const { shown, answer, offer } = lastShown;
          assert.ok(answer !== undefined && offer.includes(answer), 'sent only after the user chose a decision offered');
          assert.equal(put.path, answer === 'accept' ? '/api/v0/instances/accept-price-increase/' : '/api/v0/instances/reject-price-increase/');
          assert.deepEqual(put.body, { pending_price_increase_id: shown.id }, 'exactly the body, for the id shown');
          assert.equal(Object.keys(put.body as object).length, 1);
          assert.equal(put.figures, figuresKey(shown.increase), 'the figures shown are the figures decided');
          assert.equal(result, answer === 'accept' ? 'accepted' : 'rejected');
          if (typeof arg === 'number') assert.equal(shown.id, arg, 'a numeric argument is an increase id, never an instance id');
          if (arg && typeof arg === 'object' && 'id' in arg)
            assert.equal(shown.increase.contract_id, arg.id, "an instance row decides only that instance's increase");
          decided.add(shown.id);
        }
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});

const GUARD = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;
const instanceArb = fc.record({
  id: fc.integer({ min: 1, max: 12 }),
  state: fc.constantFrom('running', 'stopped', 'loading', 'exited', 'created'),
  guarded: fc.boolean(),
});
const list = fc
  .array(instanceArb, { maxLength: 8 })
  .map((xs) => xs.map((x) => ({ id: x.id, state: x.state, label: `i${x.id}`, onstart: x.guarded ? GUARD : 'echo hi' }) as unknown as Instance));

test('the budget stop action: only offered, guarded, running, listed instances, only after the user agreed', async () => {
  await fc.assert(
    fc.asyncProperty(
      list,
      list,
      fc.constantFrom<'warn' | 'stopGuarded'>('warn', 'stopGuarded'),
      fc.nat(3),
      fc.boolean(),
      fc.double({ min: 0, max: 300, noNaN: true }),
      async (first, after, onExceeded, button, agree, spent) => {
        let current = first;
        const stopped: number[] = [];
        let confirmed = false;
        let offeredLabel: string | undefined;
        const out = await budgetAction({
          monthly: 100,
          onExceeded,
          spent,
          ratePerHour: 1,
          nowS: Date.parse('2026-11-20T00:00:00Z') / 1000,
          state: new MemoryState(),
          instances: () => current,
          name: (i) => `#${i.id}`,
          stop: async (id) => void stopped.push(id),
          showSpending: () => undefined,
          stopAllRunning: () => undefined,
          prompts: {
            warn: async (_m, buttons) => (
              (offeredLabel = buttons.find((b) => b.startsWith('Stop ') && b.includes('Guarded'))),
              buttons[button % buttons.length]
            ),
            confirmStop: async () => {
              confirmed = agree;
              current = after;
              return agree;
            },
          },
        });
        const offered = new Set(guardedRunning(first).map((i) => i.id));
        const still = new Set(guardedRunning(after).map((i) => i.id));
        assert.ok(
          stopped.every((id) => offered.has(id) && still.has(id)),
          `stopped ${stopped} ⊆ offered ∩ still guarded and running`,
        );
        assert.equal(new Set(stopped).size, stopped.length, 'each at most once');
        if (stopped.length) assert.ok(confirmed && onExceeded === 'stopGuarded' && spent >= 100);
        if (out?.action === 'stopped') assert.deepEqual(stopped.sort(), [...offered].filter((id) => still.has(id)).sort());
        if (offeredLabel) assert.equal(offeredLabel, stopGuardedLabel(offered.size));
      },
    ),
    { seed: SEED, numRuns: RUNS * 2 },
  );
});
