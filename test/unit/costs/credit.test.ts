// The one read of the account's money, against the simulator: the user record at most every 5
// minutes (sooner when an instance record says the balance moved), at once on refresh, shared by
// every view with when it was read; an answer from before a connection change is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asOfText } from '../../../src/core/rates';
import { CREDIT_HINT_MIN_MS, CreditStore, USER_CREDIT_REFRESH_MS } from '../../../src/costs/credit';
import type { Instance, ServiceApi } from '../../../src/api/types';
import { useHarness, type Harness } from '../api/helpers';

let h: Harness;
useHarness({}, (x) => (h = x));

function counting(): { api: () => Promise<ServiceApi>; calls: () => number } {
  let n = 0;
  const client = h.client();
  const api: ServiceApi = Object.create(client, { currentUser: { value: (...a: Parameters<ServiceApi['currentUser']>) => (n++, client.currentUser(...a)) } });
  return { api: async () => api, calls: () => n };
}

const changed = (c: CreditStore) => new Promise<void>((r) => c.onDidChange(() => r()));

test("an instance record's credit is only a hint: the figure shown is the user record's, read again when the hint differs (at most once a minute)", async () => {
  const { api, calls } = counting();
  let now = 1_000_000;
  const c = new CreditStore({ api, generation: () => 0, now: () => now });
  let arrived = changed(c);
  assert.equal(c.current([{ id: 1, credit_balance: 12.5 } as Instance]), undefined, "not the instance record's figure: no view could show the same");
  await arrived;
  const read = (await h.client().currentUser()).credit!;
  assert.equal(c.current([{ id: 1, credit_balance: 12.5 } as Instance]), read);
  assert.equal(calls(), 1, 'a differing hint within the minute asks nothing');
  now += CREDIT_HINT_MIN_MS + 1;
  assert.equal(c.current([{ id: 1, credit_balance: read } as Instance]), read);
  assert.equal(calls(), 1, 'a hint that agrees asks nothing');
  arrived = changed(c);
  c.current([{ id: 1, credit_balance: 12.5 } as Instance]);
  await arrived;
  assert.equal(calls(), 2, 'a hint that differs, a minute on: read again');
});

test('refresh reads at once and every view gets the same read with its time; a read in flight or just answered is shared', async () => {
  const { api, calls } = counting();
  const now = 1_000_000;
  const c = new CreditStore({ api, generation: () => 0, now: () => now });
  const [a, b] = await Promise.all([c.refresh(), c.refresh({ maxAgeMs: 5000 })]);
  assert.equal(calls(), 1, 'one read for both');
  assert.equal(a, b);
  const r = c.reading()!;
  assert.equal(r.at, now);
  assert.equal(r.credit, a.credit);
  assert.equal(c.current([]), r.credit, "the status bar's figure is the same read");
  await c.refresh({ maxAgeMs: 5000 });
  assert.equal(calls(), 1, 'answered just now: used');
  await c.refresh();
  assert.equal(calls(), 2, 'Refresh asks again');
  assert.match(asOfText(Date.UTC(2026, 10, 28, 15, 42)), /^as of \d{1,2}:\d{2}/);
});

test('otherwise the user record is fetched once, then again only after 5 minutes', async () => {
  const { api, calls } = counting();
  let now = 1_000_000;
  const c = new CreditStore({ api, generation: () => 0, now: () => now });
  const arrived = changed(c);
  assert.equal(c.current([]), undefined, 'nothing known before the first answer');
  await arrived;
  const credit = c.current([]);
  assert.equal(typeof credit, 'number');
  assert.equal(credit, (await h.client().currentUser()).credit);
  now += USER_CREDIT_REFRESH_MS - 1;
  c.current([]);
  assert.equal(calls(), 1);
  now += 2;
  const again = changed(c);
  c.current([]);
  await again;
  assert.equal(calls(), 2);
});

test('an answer that arrives after the connection changed is dropped', async () => {
  const { api } = counting();
  let gen = 0;
  const c = new CreditStore({ api: async () => (gen++, api()), generation: () => gen });
  let fired = false;
  c.onDidChange(() => (fired = true));
  c.current([]);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(fired, false);
  assert.equal(c.current([]), undefined);
});
