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
