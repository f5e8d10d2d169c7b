// The pacer: calls in runs are spaced, and after a 429 even an endpoint that is not paced up
// front (a search, a state change) waits the service's whole threshold before the next call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pacer, SERVICE_PACING_MS, SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';

function clock() {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
  };
}

test('a paced endpoint (list) spaces consecutive calls by its threshold', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  await p.take('list', undefined);
  await p.take('list', undefined);
  assert.equal(c.slept.length, 1);
  assert.ok(c.slept[0]! >= SERVICE_THRESHOLDS_MS.list, `slept ${c.slept[0]} ms`);
});

test('after a 429 an endpoint that is not paced up front (search) waits its whole threshold', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  await p.take('search', undefined);
  assert.deepEqual(c.slept, [], 'a single search is not delayed');
  p.penalize('search');
  await p.take('search', undefined);
  assert.equal(c.slept.length, 1, 'the retry after a 429 must wait');
  assert.ok(c.slept[0]! >= SERVICE_THRESHOLDS_MS.search, `slept ${c.slept[0]} ms`);
  await p.take('search', undefined);
  assert.equal(c.slept.length, 1, 'once the penalty is served, searches are not delayed again');
});

test('exact waits: the interval plus a 50 ms margin, counted from the booked slot; an unpaced endpoint never waits', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  assert.equal(p.interval('list'), SERVICE_PACING_MS.list + 50);
  assert.equal(p.interval('update'), 0, 'not paced up front: no margin either');
  await p.take('list', undefined);
  await p.take('list', undefined);
  await p.take('list', undefined);
  assert.deepEqual(c.slept, [1050, 1050]);
  // time that passed on its own counts: no wait once the slot is reached
  const c2 = clock();
  const p2 = new Pacer(SERVICE_PACING_MS, c2);
  await p2.take('show', undefined);
  await c2.sleep(2049);
  await p2.take('show', undefined);
  assert.deepEqual(c2.slept, [2049, 1], 'one millisecond short of the slot');
  await c2.sleep(5000);
  await p2.take('show', undefined);
  assert.deepEqual(c2.slept, [2049, 1, 5000], 'past the slot: no wait');
  // each endpoint has its own slot
  await p2.take('list', undefined);
  assert.equal(c2.slept.length, 3);
  for (let i = 0; i < 3; i++) await p2.take('update', undefined);
  assert.equal(c2.slept.length, 3, 'update is not paced');
});

test('a second caller books the slot after the first one, without waiting for it to finish', async () => {
  let now = 0;
  const waits: number[] = [];
  const p = new Pacer(SERVICE_PACING_MS, { now: () => now, sleep: async (ms) => void waits.push(ms) });
  await Promise.all([p.take('show', undefined), p.take('show', undefined), p.take('show', undefined)]);
  assert.deepEqual(waits, [2050, 4100]);
  now = 10_000;
  await p.take('show', undefined);
  assert.deepEqual(waits, [2050, 4100], 'all booked slots lie in the past');
});

test('penalties: the threshold plus the margin from now, never shortening a later slot; the thresholds are the ones passed', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  p.penalize('update');
  await p.take('update', undefined);
  assert.deepEqual(c.slept, [SERVICE_THRESHOLDS_MS.update + 50]);
  // a paced endpoint whose booked slot is later than the penalty keeps it
  await p.take('show', undefined);
  await p.take('show', undefined); // books a slot 2 x 2050 ms after the first take
  p.penalize('show');
  await p.take('show', undefined);
  assert.deepEqual(c.slept.slice(1), [2050, 2050]);
  // a pacer for a simulator without limits: a 429 holds nothing back
  const off = clock();
  const free = new Pacer({ show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 }, off, { show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 });
  free.penalize('create');
  await free.take('create', undefined);
  assert.deepEqual(off.slept, []);
  // own thresholds: a penalty waits the longer of the interval and the threshold
  const own = clock();
  const q = new Pacer({ show: 3000, list: 0, update: 0, destroy: 0, create: 0, search: 0 }, own, { show: 100, list: 0, update: 0, destroy: 0, create: 0, search: 700 });
  q.penalize('show');
  await q.take('show', undefined);
  q.penalize('search');
  await q.take('search', undefined);
  assert.deepEqual(own.slept, [3050, 750]);
});
