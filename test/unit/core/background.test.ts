// background(): work nobody waits for still has its failure handled (logged, never unhandled);
// afterActivation(): the same, started once the caller (activate()) has returned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterActivation, background } from '../../../src/core/background';

const tick = () => new Promise((r) => setImmediate(r));

test('a rejection is logged as a warning naming the work; success logs nothing', async () => {
  const warnings: string[] = [];
  const log = { warn: (m: string) => warnings.push(m) };
  background(Promise.reject(new Error('disk full')), log, 'saving the notes');
  background(Promise.resolve(1), log, 'reading');
  background({ then: (_ok: unknown, fail: (e: unknown) => void) => fail(new Error('thenable broke')) } as PromiseLike<unknown>, log, 'a Thenable');
  await tick();
  assert.deepEqual(warnings, ['saving the notes failed: disk full', 'a Thenable failed: thenable broke']);
});

test('afterActivation starts the work after the caller and its promise jobs, and logs a failure', async () => {
  const warnings: string[] = [];
  const log = { warn: (m: string) => warnings.push(m) };
  const order: string[] = [];
  afterActivation(() => order.push('deferred'), log, 'the deferred work');
  afterActivation(
    () => {
      throw new Error('no window');
    },
    log,
    'opening the walkthrough',
  );
  const job = Promise.resolve().then(() => order.push('promise job'));
  order.push('caller');
  await job;
  await tick();
  await tick();
  assert.deepEqual(order, ['caller', 'promise job', 'deferred']);
  assert.deepEqual(warnings, ['opening the walkthrough failed: no window']);
});
