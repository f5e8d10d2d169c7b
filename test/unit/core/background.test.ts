// background(): work nobody waits for still has its failure handled (logged, never unhandled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { background } from '../../../src/core/background';

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
