// The pacer: calls in runs are spaced, and after a 429 even an endpoint that is not paced up
// front (a search, a state change) waits the service's whole threshold before the next call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { atOnce, flush, track } from '../../kit/clock';
import { Pacer, SERVICE_PACING_MS, SERVICE_THRESHOLDS_MS, type PacedEndpoint } from '../../../src/api/pacing';

/** One call of `e` that answers at once: its turn taken and given back. */
async function call(p: Pacer, e: PacedEndpoint): Promise<void> {
  (await atOnce(p.take(e, undefined), `a ${e} call`)).done();
}

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
    cancelled: () => new Error('cancelled'),
  };
}

test('a paced endpoint (list) spaces consecutive calls by its threshold', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  await call(p, 'list');
  await call(p, 'list');
  assert.equal(c.slept.length, 1);
  assert.ok(c.slept[0]! >= SERVICE_THRESHOLDS_MS.list, `slept ${c.slept[0]} ms`);
});

test('after a 429 an endpoint that is not paced up front (search) waits its whole threshold', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  await call(p, 'search');
  assert.deepEqual(c.slept, [], 'a single search is not delayed');
  p.penalize('search');
  await call(p, 'search');
  assert.equal(c.slept.length, 1, 'the retry after a 429 must wait');
  assert.ok(c.slept[0]! >= SERVICE_THRESHOLDS_MS.search, `slept ${c.slept[0]} ms`);
  await call(p, 'search');
  assert.equal(c.slept.length, 1, 'once the penalty is served, searches are not delayed again');
});

test('exact waits: the interval plus a 50 ms margin, counted from the booked slot; an unpaced endpoint never waits', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  assert.equal(p.interval('list'), SERVICE_PACING_MS.list + 50);
  assert.equal(p.interval('update'), 0, 'not paced up front: no margin either');
  await call(p, 'list');
  await call(p, 'list');
  await call(p, 'list');
  assert.deepEqual(c.slept, [1050, 1050]);
  // time that passed on its own counts: no wait once the slot is reached
  const c2 = clock();
  const p2 = new Pacer(SERVICE_PACING_MS, c2);
  await call(p2, 'show');
  await c2.sleep(2049);
  await call(p2, 'show');
  assert.deepEqual(c2.slept, [2049, 1], 'one millisecond short of the slot');
  await c2.sleep(5000);
  await call(p2, 'show');
  assert.deepEqual(c2.slept, [2049, 1, 5000], 'past the slot: no wait');
  // each endpoint has its own slot
  await call(p2, 'list');
  assert.equal(c2.slept.length, 3);
  for (let i = 0; i < 3; i++) await call(p2, 'update');
  assert.equal(c2.slept.length, 3, 'update is not paced');
});

test('the interval counts from the answer: a slow first call does not let the next one follow at once', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  const turn = await atOnce(p.take('show', undefined), 'the first call');
  await c.sleep(3000); // the first request is 3 s on its way: it may reach the server just before its answer
  turn.done();
  await call(p, 'show');
  assert.deepEqual(c.slept, [3000, 2050], 'the whole interval after the answer, not after the send');
});

test('calls of one paced endpoint go one at a time, in order; an unpaced one never waits in line', async () => {
  let now = 0;
  const waits: number[] = [];
  const p = new Pacer(SERVICE_PACING_MS, { now: () => now, sleep: async (ms) => void waits.push(ms), cancelled: () => new Error('cancelled') });
  const order: string[] = [];
  const first = await atOnce(p.take('show', undefined), 'the first call');
  const second = p.take('show', undefined).then((t) => (order.push('second'), t));
  const third = p.take('show', undefined).then((t) => (order.push('third'), t));
  await flush();
  assert.deepEqual(order, [], 'both wait while the first call is in flight');
  const update = await atOnce(p.take('update', undefined), 'an unpaced call');
  const update2 = await atOnce(p.take('update', undefined), 'an unpaced call while another is in flight');
  update.done();
  update2.done();
  now = 500;
  first.done();
  const secondTurn = await atOnce(second, 'the second call once the first is done');
  await flush();
  assert.deepEqual(order, ['second'], 'the third waits for the second');
  secondTurn.done();
  (await atOnce(third, 'the third call once the second is done')).done();
  assert.deepEqual(order, ['second', 'third']);
  assert.deepEqual(waits, [2050, 2050], 'each waits the interval from the previous answer');
});

test("a caller cancelled while in line fails with the clock's error and passes its turn on", async () => {
  const now = 0;
  const waits: number[] = [];
  const cancelled = new Error('cancelled in line');
  const p = new Pacer(SERVICE_PACING_MS, { now: () => now, sleep: async (ms) => void waits.push(ms), cancelled: () => cancelled });
  const first = await atOnce(p.take('list', undefined), 'the first call');
  const ac = new AbortController();
  const gone = p.take('list', ac.signal);
  const after = p.take('list', undefined);
  const waiting = track(after);
  ac.abort();
  await assert.rejects(atOnce(gone, 'the cancelled call'), (e) => e === cancelled);
  await flush();
  assert.equal(waiting.settled(), false, 'the one after still waits for the first call');
  first.done();
  (await atOnce(after, 'the call after the cancelled one')).done();
  assert.deepEqual(waits, [1050], 'one interval: the cancelled caller sent nothing');
  const already = new AbortController();
  already.abort();
  const busy = await atOnce(p.take('list', undefined), 'a call on a free line');
  await assert.rejects(atOnce(p.take('list', already.signal), 'a call with a cancelled signal'), (e) => e === cancelled);
  busy.done();
});

test('a caller with a signal that is never aborted waits its turn like the others, and leaves no abort listener behind', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  const ac = new AbortController();
  const first = await atOnce(p.take('show', ac.signal), 'the first call');
  const second = p.take('show', ac.signal);
  const waiting = track(second);
  await flush();
  assert.equal(waiting.settled(), false);
  first.done();
  (await atOnce(second, 'the second call once the first is done')).done();
  assert.deepEqual(c.slept, [2050]);
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0, 'no listener left on the signal');
});

test('penalties: the threshold plus the margin from now, never shortening a later slot; the thresholds are the ones passed', async () => {
  const c = clock();
  const p = new Pacer(SERVICE_PACING_MS, c);
  p.penalize('update');
  await call(p, 'update');
  assert.deepEqual(c.slept, [SERVICE_THRESHOLDS_MS.update + 50]);
  // a paced endpoint whose booked slot is later than the penalty keeps it
  await call(p, 'show');
  await call(p, 'show'); // books a slot 2 x 2050 ms after the first take
  p.penalize('show');
  await call(p, 'show');
  assert.deepEqual(c.slept.slice(1), [2050, 2050]);
  // a pacer for a simulator without limits: a 429 holds nothing back
  const off = clock();
  const free = new Pacer({ show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 }, off, {
    show: 0,
    list: 0,
    update: 0,
    destroy: 0,
    create: 0,
    search: 0,
  });
  free.penalize('create');
  await call(free, 'create');
  assert.deepEqual(off.slept, []);
  // own thresholds: a penalty waits the longer of the interval and the threshold
  const own = clock();
  const q = new Pacer({ show: 3000, list: 0, update: 0, destroy: 0, create: 0, search: 0 }, own, {
    show: 100,
    list: 0,
    update: 0,
    destroy: 0,
    create: 0,
    search: 700,
  });
  q.penalize('show');
  await call(q, 'show');
  q.penalize('search');
  await call(q, 'search');
  assert.deepEqual(own.slept, [3050, 750]);
});
