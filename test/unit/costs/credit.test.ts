// Credit for the status bar, against the simulator: instance records first, the user record at
// most every 5 minutes, and an answer from before a connection change is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreditStore, USER_CREDIT_REFRESH_MS } from '../../../src/costs/credit';
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

test('the credit on an instance record is used without asking the service', () => {
  const { api, calls } = counting();
  const c = new CreditStore({ api, generation: () => 0 });
  assert.equal(c.current([{ id: 1, credit_balance: 12.5 } as Instance]), 12.5);
  assert.equal(calls(), 0);
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
