import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionGuard, instanceKey } from '../../../src/core/actionGuard';

test('one action per key: a second claim names the running action and gets no release; release frees the key once', () => {
  const g = new ActionGuard();
  const a = g.claim(instanceKey(1), 'Recycle');
  assert.equal(typeof a, 'function');
  assert.deepEqual(g.claim(instanceKey(1), 'Recycle'), { busy: 'Recycle' });
  assert.deepEqual(g.claim(instanceKey(1), 'Destroy'), { busy: 'Recycle' }, 'another action on the same instance waits too');
  const b = g.claim(instanceKey(2), 'Stop');
  assert.equal(typeof b, 'function', 'other instances are not held');
  (a as () => void)();
  assert.equal(g.holder(instanceKey(1)), undefined);
  const c = g.claim(instanceKey(1), 'Destroy');
  assert.equal(typeof c, 'function');
  (a as () => void)(); // a late second release does not free the new holder
  assert.equal(g.holder(instanceKey(1)), 'Destroy');
});
