// Price-increase notifications: each increase told about once, remembered while it is pending (a
// reload does not repeat it, however many there are), forgotten once decided or withdrawn, and
// many new ones in one read told in one notification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncreaseNotices, MAX_SEPARATE_NOTICES, type NoticePlan } from '../../../src/billing/increaseNotices';
import type { PendingPriceIncrease } from '../../../src/api/types';
import { MemoryState } from '../../kit/state';
import { NOTIFIED_INCREASES_KEY } from '../../../src/core/stateKeys';

const rows = (...ids: number[]): PendingPriceIncrease[] => ids.map((id) => ({ pending_price_increase_id: id, contract_id: 1000 + id }));
const told = (plan: NoticePlan | undefined): number[] => (plan ? ('each' in plan ? plan.each : plan.group).map((p) => p.pending_price_increase_id) : []);

test('told once; after a reload (a new window on the same state) nothing already told is told again', async () => {
  const state = new MemoryState();
  const first = new IncreaseNotices(state, () => 'https://a');
  const a = first.take(rows(1, 2));
  await a.saved;
  assert.deepEqual(told(a.plan), [1, 2]);
  assert.equal(first.take(rows(1, 2)).plan, undefined, 'the next read: nothing new');
  const reloaded = new IncreaseNotices(state, () => 'https://a');
  const b = reloaded.take(rows(1, 2, 3));
  assert.deepEqual(told(b.plan), [3], 'after the reload only the new one');
});

test('300 pending: one notification for all, and none of them again after a reload', async () => {
  const state = new MemoryState();
  const many = rows(...Array.from({ length: 300 }, (_, i) => i + 1));
  const t = new IncreaseNotices(state, () => 'https://a').take(many);
  await t.saved;
  assert.ok(t.plan && 'group' in t.plan && t.plan.group.length === 300, 'one grouped notification');
  assert.equal(new IncreaseNotices(state, () => 'https://a').take(many).plan, undefined);
});

test(`up to ${MAX_SEPARATE_NOTICES} new ones get one notification each; more are grouped`, () => {
  const few = new IncreaseNotices(new MemoryState(), () => '').take(rows(...Array.from({ length: MAX_SEPARATE_NOTICES }, (_, i) => i + 1))).plan;
  assert.ok(few && 'each' in few && few.each.length === MAX_SEPARATE_NOTICES);
  const more = new IncreaseNotices(new MemoryState(), () => '').take(rows(...Array.from({ length: MAX_SEPARATE_NOTICES + 1 }, (_, i) => i + 1))).plan;
  assert.ok(more && 'group' in more);
});

test('remembered as long as pending: ids no longer listed are forgotten; per server; a decided one is not told again', async () => {
  const state = new MemoryState();
  const n = new IncreaseNotices(state, () => 'https://a');
  await n.take(rows(1, 2, 3)).saved;
  await n.take(rows(3)).saved;
  assert.deepEqual(state.get<Record<string, number[]>>(NOTIFIED_INCREASES_KEY), { 'https://a': [3] });
  assert.deepEqual(told(new IncreaseNotices(state, () => 'https://b').take(rows(3)).plan), [3], 'another server numbers its own');
  n.decided(9);
  assert.equal(n.take(rows(3, 9)).plan, undefined, 'decided here, still listed by a lagging read: not told');
});

test('a corrupt memory is ignored, not fatal', () => {
  const state = new MemoryState();
  state.data.set(NOTIFIED_INCREASES_KEY, { 'https://a': 'junk', other: [1, 'x'] });
  assert.deepEqual(told(new IncreaseNotices(state, () => 'https://a').take(rows(1)).plan), [1]);
});
