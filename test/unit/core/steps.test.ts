import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { choiceNamed, typedChoice, typedReliability } from '../../../src/core/steps';

test('a typed reliability is taken as a fraction or a percent, and refused with a reason otherwise', () => {
  for (const [t, v] of [
    ['0.98', 0.98],
    ['98', 0.98],
    ['98%', 0.98],
    ['>=0.95', 0.95],
    ['≥ 99.5%', 0.995],
    ['.9', 0.9],
    ['1', 1],
    ['0', 0],
  ] as const) {
    const r = typedReliability(t);
    assert.ok(r.ok, `${t} refused`);
    assert.equal(r.value, v, t);
  }
  for (const t of ['abc', '101%', '150', '-1', '0.9.8', '']) {
    const r = typedReliability(t);
    assert.equal(r.ok, false, `${t} accepted`);
    assert.ok(!r.ok && r.problem.length > 10);
  }
});

test('a single-choice step takes a typed label and says why it refuses other text', () => {
  const choices = [
    { label: 'Verified hosts only', value: true },
    { label: 'Include unverified hosts', value: false },
  ];
  assert.deepEqual(typedChoice('include  UNVERIFIED hosts', choices), { ok: true, value: false, label: 'Include unverified hosts' });
  const r = typedChoice('maybe', choices);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.problem : '', /^"maybe" is not one of the choices/);
  assert.equal(choiceNamed('', choices), undefined);
});
