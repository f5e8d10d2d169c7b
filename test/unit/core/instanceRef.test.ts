import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instanceIdOf, offerRefOf, pickRule, positiveId } from '../../../src/core/instanceRef';
import type { Instance, Offer } from '../../../src/api/types';

test('instance ids: numbers, decimal text, tree item ids, rows, Instances', () => {
  assert.equal(instanceIdOf(42), 42);
  assert.equal(instanceIdOf(' 42 '), 42);
  assert.equal(instanceIdOf('instance:42'), 42);
  assert.equal(instanceIdOf({ kind: 'instance', id: 42 }), 42);
  assert.equal(instanceIdOf({ id: 'instance:42' }), 42);
  assert.equal(instanceIdOf({ kind: 'detail', instanceId: 7, key: 'ssh' }), 7);
  assert.equal(instanceIdOf({ instance: { id: 9 } }), 9);
  assert.equal(instanceIdOf({ id: 5, skipConfirmation: true }), 5);
});

test('instance ids: zero, negatives, fractions, junk and hostile text are no id', () => {
  for (const bad of [
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    '0',
    '-3',
    '4a',
    'instance:',
    '1e3',
    '',
    ' ',
    '12; rm -rf ~',
    null,
    undefined,
    {},
    { id: 0 },
    { instanceId: 'x' },
    [],
    true,
  ]) {
    assert.equal(instanceIdOf(bad), undefined, `${JSON.stringify(bad)} was read as an id`);
  }
  assert.equal(positiveId(Number.MAX_SAFE_INTEGER + 2), undefined);
});

test('offer refs: an offer row keeps the Offer; ids and Offer objects are accepted', () => {
  const offer = { id: 77, dph_total: 0.5 } as Offer;
  assert.equal(offerRefOf({ kind: 'offer', id: 77, offer }), offer);
  assert.equal(offerRefOf(offer), offer);
  assert.equal(offerRefOf(77), 77);
  assert.equal(offerRefOf('77'), 77);
  assert.equal(offerRefOf({ id: 77 }), undefined, 'an object without offer fields is not an offer');
  assert.equal(offerRefOf({ offer: { id: -1 } }), undefined);
  assert.equal(offerRefOf('abc'), undefined);
});

test('picker rule: none, take the only one when the command allows it, else choose', () => {
  const a = { id: 1, state: 'running' } as Instance;
  const b = { id: 2, state: 'stopped' } as Instance;
  const running = (i: Instance) => i.state === 'running';
  assert.deepEqual(pickRule([b], running), { kind: 'none' });
  assert.deepEqual(pickRule([a, b], running, true), { kind: 'one', instance: a });
  assert.deepEqual(pickRule([a, b], running), { kind: 'choose', candidates: [a] }, 'a command that changes state still asks for a single candidate');
  assert.deepEqual(
    pickRule([a, b], () => true, true),
    { kind: 'choose', candidates: [a, b] },
  );
});
