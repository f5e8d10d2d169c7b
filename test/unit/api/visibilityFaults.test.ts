// Every fault the simulator can inject, read through the real client and judged by the one
// visibility rule (src/api/visibility.ts): only "not found" reads count toward absence, only lost
// create answers that prove nothing are reconciled, only listed refusals (src/api/rentAgain.ts) move on. (The rule on its own: visibility.test.ts.)
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_VISIBLE_WINDOW_MS, VisibilityWatch, saysNotFound } from '../../../src/api/visibility';
import { provenRefusal } from '../../../src/api/rentAgain';
import type { Instance, ServiceApi } from '../../../src/api/types';
import type { SimFault } from '../../../src/sim/control';
import { useHarness, type Harness } from './helpers';

const inst = (id: number) => ({ id, state: 'provisioning', actual_status: null }) as Instance;
let h: Harness;
useHarness({}, (x) => (h = x));
beforeEach(() => h.ctl.reset());

type Judged = 'visible' | 'not-found' | 'unreadable' | 'ambiguous' | 'offer-gone' | 'refused';
const SHOW = '/api/v0/instances/';
const CREATE = '/api/v0/asks/';

/** How the module judges a read's outcome. */
function judge(e: unknown, call: 'show' | 'create'): Judged {
  if (e === undefined) return 'visible';
  if (call === 'show') return saysNotFound(e) ? 'not-found' : 'unreadable';
  // The rule for renting again (src/api/rentAgain.ts): only a listed refusal proves nothing was created.
  const refusal = provenRefusal(e);
  if (!refusal) return 'ambiguous';
  return refusal.then === 'next-offer' ? 'offer-gone' : 'refused';
}

interface Case {
  call: 'show' | 'create';
  fault(c: { id: number; offerId: number }): SimFault;
  expect: Judged;
}

/** One row per fault kind the simulator has: a new kind fails the typecheck until it is judged here. */
const CASES: Record<SimFault['kind'], Case[]> = {
  instance_state: [{ call: 'show', fault: ({ id }) => ({ kind: 'instance_state', id, state: 'offline' }), expect: 'visible' }],
  http_error: [
    ...[404, 400].map((status): Case => ({
      call: 'show',
      fault: () => ({ kind: 'http_error', status, error: 'no_such_instance', path: SHOW }),
      expect: 'not-found',
    })),
    ...[410, 429, 500, 502, 503].map((status): Case => ({ call: 'show', fault: () => ({ kind: 'http_error', status, path: SHOW }), expect: 'unreadable' })),
    { call: 'create', fault: () => ({ kind: 'http_error', status: 404, error: 'no_such_ask', path: CREATE }), expect: 'offer-gone' },
    // a 5xx, even with an error body, and an unlisted 4xx prove nothing: the list is asked
    { call: 'create', fault: () => ({ kind: 'http_error', status: 500, path: CREATE }), expect: 'ambiguous' },
    { call: 'create', fault: () => ({ kind: 'http_error', status: 404, path: CREATE }), expect: 'ambiguous' },
    { call: 'create', fault: () => ({ kind: 'http_error', status: 400, error: 'invalid_args', path: CREATE }), expect: 'refused' },
    { call: 'create', fault: () => ({ kind: 'http_error', status: 429, path: CREATE }), expect: 'refused' },
  ],
  // 200 {"success": false}: a 2xx that is not a clear success. A show is unreadable, not "gone";
  // a create's outcome is unknown (the service may have acted): the list is asked.
  refused: [
    { call: 'show', fault: () => ({ kind: 'refused', path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'refused', path: CREATE }), expect: 'ambiguous' },
  ],
  slow: [
    { call: 'show', fault: () => ({ kind: 'slow', ms: 3000, path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'slow', ms: 3000, path: CREATE }), expect: 'ambiguous' },
  ],
  malformed: [
    { call: 'show', fault: () => ({ kind: 'malformed', path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'malformed', path: CREATE }), expect: 'ambiguous' },
  ],
  truncated: [
    { call: 'show', fault: () => ({ kind: 'truncated', path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'truncated', path: CREATE }), expect: 'ambiguous' },
  ],
  wrong_shape: [
    { call: 'show', fault: () => ({ kind: 'wrong_shape', path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'wrong_shape', path: CREATE }), expect: 'ambiguous' },
  ],
  huge: [
    { call: 'show', fault: () => ({ kind: 'huge', bytes: 9 * 1024 * 1024, path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'huge', bytes: 9 * 1024 * 1024, path: CREATE }), expect: 'ambiguous' },
  ],
  reset: [
    { call: 'show', fault: () => ({ kind: 'reset', path: SHOW }), expect: 'unreadable' },
    { call: 'create', fault: () => ({ kind: 'reset', path: CREATE }), expect: 'ambiguous' },
  ],
  hidden: [{ call: 'show', fault: () => ({ kind: 'hidden', seconds: 600 }), expect: 'not-found' }],
  // a member that shows up late reads like any late instance; one that never boots or fails is still visible
  boot: [
    { call: 'show', fault: () => ({ kind: 'boot', mode: 'late', seconds: 600 }), expect: 'not-found' },
    { call: 'show', fault: () => ({ kind: 'boot', mode: 'fail' }), expect: 'visible' },
  ],
  // a list that ignores its filter does not change what a show says (locateCreation's own test covers the list)
  unfiltered: [{ call: 'show', fault: () => ({ kind: 'unfiltered' }), expect: 'visible' }],
  offer_taken: [{ call: 'create', fault: ({ offerId }) => ({ kind: 'offer_taken', offerId }), expect: 'offer-gone' }],
  offer_unschedulable: [{ call: 'create', fault: ({ offerId }) => ({ kind: 'offer_unschedulable', offerId }), expect: 'offer-gone' }],
  offer_own: [{ call: 'create', fault: ({ offerId }) => ({ kind: 'offer_own', offerId }), expect: 'offer-gone' }],
  // a 2FA fault touches only the 2FA endpoints: instance reads and creations answer as usual
  tfa_error: [
    { call: 'show', fault: () => ({ kind: 'tfa_error', error: '2fa_expired' }), expect: 'visible' },
    { call: 'create', fault: () => ({ kind: 'tfa_error', error: '2fa_expired' }), expect: 'visible' },
  ],
  expire_session: [{ call: 'show', fault: () => ({ kind: 'expire_session' }), expect: 'visible' }],
};

async function attempt(api: ServiceApi, c: Case): Promise<Judged> {
  const setup = h.client(); // the setup reads and creation, with the usual timeout
  const [offer] = await setup.searchOffers({ limit: 1 });
  const label = `vis-${Math.random().toString(36).slice(2, 8)}`;
  // 'hidden' and 'boot' apply to the next creation; the others to the call under test
  const pre = c.fault({ id: 0, offerId: offer!.id });
  const atCreation = pre.kind === 'hidden' || pre.kind === 'boot';
  if (atCreation) await h.ctl.fault(pre);
  let id = 0;
  if (c.call === 'show') id = (await setup.createInstance(offer!.id, { image: 'i', label, disk: 10, runtype: 'ssh_direct' })).new_contract;
  if (!atCreation) await h.ctl.fault(c.fault({ id, offerId: offer!.id }));
  try {
    if (c.call === 'show') await api.showInstance(id);
    else await api.createInstance(offer!.id, { image: 'i', label, disk: 10, runtype: 'ssh_direct' });
    return judge(undefined, c.call);
  } catch (e) {
    return judge(e, c.call);
  }
}

test('every fault the simulator can inject is judged by the visibility rule: only "not found" reads count toward absence, only lost create answers are reconciled, only offer-gone codes move on', async () => {
  const seen: string[] = [];
  for (const [kind, cases] of Object.entries(CASES)) {
    for (const c of cases) {
      await h.ctl.reset();
      // a short timeout only where the fault is a slow answer (a loaded machine must not turn a plain read into a timeout)
      const slow = c.fault({ id: 1, offerId: 1 }).kind === 'slow';
      const api = h.client({ timeoutMs: slow ? 300 : 10_000, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
      const got = await attempt(api, c);
      seen.push(`${kind}/${c.call}`);
      assert.equal(got, c.expect, `${kind} on ${c.call}: ${JSON.stringify(c.fault({ id: 1, offerId: 1 }))}`);
      if (c.call === 'show') {
        // and what the watch makes of it after the minute: not-found asks the list, the rest back off
        const w = new VisibilityWatch(0);
        const v = got === 'visible' ? w.shown(inst(1)) : got === 'not-found' ? w.notFound(NOT_VISIBLE_WINDOW_MS) : w.unreadable();
        assert.equal(v.next, got === 'visible' ? 'track' : got === 'not-found' ? 'ask-list' : 'backoff');
      }
    }
  }
  assert.ok(seen.length >= Object.keys(CASES).length);
});
