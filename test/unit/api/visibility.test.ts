// The one visibility rule (src/api/visibility.ts): what each read proves about a rental in flight
// or a known instance, and what to do next; then reconciliation against the simulator. (Every
// fault the simulator can inject, judged by the rule: visibilityFaults.test.ts.)
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { AbsenceRule, GONE_CONFIRMATIONS, NOT_VISIBLE_WINDOW_MS, VisibilityWatch, keepUnlisted, saysNotFound } from '../../../src/api/visibility';
import { ApiError } from '../../../src/api/errors';
import { locateCreation, reconcileCreation } from '../../../src/api/reconcile';
import type { Instance, ServiceApi } from '../../../src/api/types';
import { useHarness, type Harness } from './helpers';

const inst = (id: number) => ({ id, state: 'provisioning', actual_status: null }) as Instance;

test('within the grace minute "not found" is "not visible yet": ask show again', () => {
  const w = new VisibilityWatch(1000);
  assert.deepEqual(w.notFound(1000 + NOT_VISIBLE_WINDOW_MS - 1), { state: 'not-visible-yet', next: 'poll' });
  assert.deepEqual(w.notFound(1000 + NOT_VISIBLE_WINDOW_MS), { state: 'unconfirmed', listReads: 0, next: 'ask-list' });
});

test('after the minute, one list read without the id and the label settles nothing; the second says "not found" (fate unknown) for a rental never shown', () => {
  const w = new VisibilityWatch(0);
  const t = NOT_VISIBLE_WINDOW_MS + 5000;
  assert.equal(GONE_CONFIRMATIONS, 2);
  assert.deepEqual(w.listRead(t, undefined), { state: 'unconfirmed', listReads: 1, next: 'ask-list' });
  const v = w.listRead(t + 10_000, undefined);
  assert.deepEqual(v, { state: 'not-found', proof: { listReads: 2, sinceMs: t + 10_000, seenBefore: false }, next: 'ask-user' });
});

test('two list reads inside the minute prove nothing; a read that failed proves nothing and does not count', () => {
  const w = new VisibilityWatch(0);
  assert.equal(w.listRead(1000, undefined).state, 'unconfirmed');
  assert.equal(w.listRead(2000, undefined).state, 'unconfirmed');
  assert.deepEqual(w.unreadable(), { state: 'unknown', next: 'backoff' });
  // once past the minute the count so far stands: a third miss settles it
  assert.equal(w.listRead(NOT_VISIBLE_WINDOW_MS, undefined).state, 'not-found');
});

test('a rental shown once and then missing from two list reads is gone (with its proof); a list that shows it again starts over', () => {
  const w = new VisibilityWatch(0);
  assert.equal(w.shown(inst(7)).state, 'visible');
  const t = NOT_VISIBLE_WINDOW_MS * 2;
  assert.equal(w.listRead(t, undefined).state, 'unconfirmed');
  assert.equal(w.listRead(t + 1, inst(7)).state, 'visible', 'found by id or label');
  assert.equal(w.listRead(t + 2, undefined).state, 'unconfirmed', 'the count started over');
  const v = w.listRead(t + 3, undefined);
  assert.equal(v.state, 'gone');
  assert.deepEqual(v.state === 'gone' && v.proof, { listReads: 2, sinceMs: t + 3, seenBefore: true });
  // a resumed watch of a rental seen before a reload
  const resumed = new VisibilityWatch(0, { seenBefore: true });
  resumed.listRead(t, undefined);
  assert.equal(resumed.listRead(t, undefined).state, 'gone');
});

test('the store keeps an unlisted row while its rental is in flight, inside the minute, or after one miss', () => {
  assert.equal(keepUnlisted({ misses: 5, putAtMs: 0, nowMs: 10 * NOT_VISIBLE_WINDOW_MS, inFlight: true }), true);
  assert.equal(keepUnlisted({ misses: 5, putAtMs: 0, nowMs: NOT_VISIBLE_WINDOW_MS - 1, inFlight: false }), true);
  assert.equal(keepUnlisted({ misses: 1, putAtMs: undefined, nowMs: 0, inFlight: false }), true);
  assert.equal(keepUnlisted({ misses: 2, putAtMs: undefined, nowMs: 0, inFlight: false }), false);
  assert.equal(keepUnlisted({ misses: 2, putAtMs: 0, nowMs: NOT_VISIBLE_WINDOW_MS, inFlight: false }), false);
});

test('the absence rule: gone after two reads in a row that leave an id out; listed again starts over', () => {
  const a = new AbsenceRule();
  assert.deepEqual(a.read([1, 2]), []);
  assert.deepEqual(a.read([2]), [2]);
  assert.deepEqual(a.read([1]), [], '1 was listed in between');
  a.reset();
  assert.deepEqual(a.read([1]), []);
});

test('what a read error says: only 404, 400, no_such_instance and "not visible yet" are "not found"', () => {
  const http = (status: number | undefined, code?: string) =>
    new ApiError({ kind: 'http', ...(status !== undefined ? { status } : {}), ...(code ? { code } : {}), message: 'x' });
  for (const e of [http(404), http(400), http(500, 'no_such_instance'), new ApiError({ kind: 'not_visible_yet', message: 'x' })])
    assert.equal(saysNotFound(e), true, e.message);
  for (const e of [
    http(410),
    http(500),
    http(undefined, 'other'),
    new ApiError({ kind: 'timeout', status: 404, message: 'x' }),
    new Error('404'),
    undefined,
    { kind: 'http', status: 404 },
  ])
    assert.equal(saysNotFound(e), false, String(e));
});

test('the watch at the edges: the minute and the count each hold absence back on their own', () => {
  // two misses, the second one millisecond inside the minute: not settled
  const w = new VisibilityWatch(500);
  w.listRead(500, undefined);
  assert.deepEqual(w.listRead(500 + NOT_VISIBLE_WINDOW_MS - 1, undefined), { state: 'unconfirmed', listReads: 2, next: 'ask-list' });
  assert.deepEqual(w.listRead(500 + NOT_VISIBLE_WINDOW_MS, undefined), {
    state: 'not-found',
    proof: { listReads: 3, sinceMs: NOT_VISIBLE_WINDOW_MS, seenBefore: false },
    next: 'ask-user',
  });
  // one miss long after the minute: not settled
  const late = new VisibilityWatch(0);
  assert.deepEqual(late.listRead(10 * NOT_VISIBLE_WINDOW_MS, undefined), { state: 'unconfirmed', listReads: 1, next: 'ask-list' });
  assert.equal(late.seenBefore, false);
  assert.deepEqual(late.listRead(10 * NOT_VISIBLE_WINDOW_MS, inst(3)), { state: 'visible', instance: inst(3), next: 'track' });
  assert.equal(late.seenBefore, true);
  assert.deepEqual(new VisibilityWatch(0, { seenBefore: true }).notFound(NOT_VISIBLE_WINDOW_MS + 1), { state: 'unconfirmed', listReads: 0, next: 'ask-list' });
  assert.equal(new VisibilityWatch(0, {}).seenBefore, false);
  // a failed read leaves the count as it was
  const f = new VisibilityWatch(0);
  f.listRead(NOT_VISIBLE_WINDOW_MS, undefined);
  f.unreadable();
  assert.equal(f.listRead(NOT_VISIBLE_WINDOW_MS, undefined).state, 'not-found');
});

test('the store rule at the edges of the minute; the absence rule counts an id once per read', () => {
  assert.equal(keepUnlisted({ misses: 2, putAtMs: 1000, nowMs: 1000 + NOT_VISIBLE_WINDOW_MS - 1, inFlight: false }), true);
  assert.equal(keepUnlisted({ misses: 2, putAtMs: 1000, nowMs: 1000 + NOT_VISIBLE_WINDOW_MS, inFlight: false }), false);
  assert.equal(keepUnlisted({ misses: 0, putAtMs: undefined, nowMs: 0, inFlight: false }), true);
  assert.equal(keepUnlisted({ misses: 3, putAtMs: undefined, nowMs: 0, inFlight: false }), false);
  const a = new AbsenceRule();
  assert.deepEqual(a.read([4, 4, 4]), [], 'one read, however often it names the id');
  assert.deepEqual(a.read(new Set([4, 5])), [4]);
  assert.deepEqual(a.read([4, 5]), [4, 5], 'still missing: still gone');
  assert.deepEqual(a.read([]), []);
  assert.deepEqual(a.read([4]), [], 'the empty read listed it again');
});

// ---- reconciliation against the simulator, through the real client ---------------------

let h: Harness;
useHarness({}, (x) => (h = x));
beforeEach(() => h.ctl.reset());

test('locateCreation: by id first, else the newest row carrying exactly the label; nothing asked without either', async () => {
  const api = h.client();
  const offers = await api.searchOffers({ limit: 3 });
  const rent = async (label: string) => (await api.createInstance(offers.shift()!.id, { image: 'i', label, disk: 10, runtype: 'ssh_direct' })).new_contract;
  const label = `loc-${Math.random().toString(36).slice(2, 8)}`;
  const first = await rent(label);
  const other = await rent(`${label}-other`);
  assert.equal((await locateCreation(api, { id: first }))?.id, first);
  assert.equal((await locateCreation(api, { id: first, label: `${label}-other` }))?.id, first, 'the id wins');
  assert.equal((await locateCreation(api, { label }))?.id, first);
  assert.equal((await locateCreation(api, { id: 987654, label }))?.id, first, 'an id the list does not show: then the label');
  assert.equal(await locateCreation(api, { id: 987654 }), undefined);
  assert.equal(await locateCreation(api, { label: `${label}-none` }), undefined);
  assert.equal(await locateCreation(api, { label: label.slice(0, -1) }), undefined, 'a prefix of the label is not the label');
  const second = await rent(label);
  assert.ok(second > first);
  assert.equal((await locateCreation(api, { label }))?.id, second, 'two rows with the label: the newest');
  assert.equal((await reconcileCreation(api, `${label}-other`))?.id, other);
  // a list that ignores the filter (answers every row): the client still picks the row by id, else by exact label
  await h.ctl.fault({ kind: 'unfiltered', count: 4 });
  assert.equal((await locateCreation(api, { id: other }))?.id, other, 'not the first row of an unfiltered list');
  assert.equal((await locateCreation(api, { id: 987654, label }))?.id, second, 'no row has the id: the newest with the label');
  assert.equal((await reconcileCreation(api, `${label}-other`))?.id, other, 'not the newest row of all');
  const before = (await h.ctl.requests()).length;
  assert.equal(await locateCreation(api, {}), undefined);
  assert.equal(await locateCreation(api, { label: '' }), undefined);
  assert.equal(await reconcileCreation(api, ''), undefined);
  assert.equal((await h.ctl.requests()).length, before, 'no request without an id or a label');
});

test('locateCreation: the newest row carrying the label, whatever order the list answers in', async () => {
  // The client sorts the v1 list by id; a ServiceApi that does not (the v0 list, the demo API) must not change which row is taken.
  const row = (id: number, label: string) => ({ id, label, state: 'running', actual_status: 'running' }) as Instance;
  const api = { findInstances: async () => [row(9, 'job'), row(12, 'job'), row(15, 'job-other'), row(10, 'job')] } as unknown as ServiceApi;
  assert.equal((await locateCreation(api, { label: 'job' }))?.id, 12, 'not the first row, not the last one');
  assert.equal((await reconcileCreation(api, 'job'))?.id, 12);
});
