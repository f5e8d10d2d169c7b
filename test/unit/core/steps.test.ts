import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BACK, choiceNamed, runSteps, typedChoice, typedReliability, type Step } from '../../../src/core/steps';

type Answers = Record<string, string>;

/** A step that shows its current answer (like a pre-filled box) and then answers from the script. */
function step(key: string, script: Array<string | typeof BACK | undefined>, seen: Array<[string, string | undefined]>): Step<Answers> {
  return async (v) => {
    seen.push([key, v[key]]);
    const r = script.shift();
    return r === BACK || r === undefined ? r : { ...v, [key]: r };
  };
}

test('Back keeps every answer: the previous step opens with its own answer, and later answers survive', async () => {
  const seen: Array<[string, string | undefined]> = [];
  const script: Array<string | typeof BACK | undefined> = ['RTX 4090', '24', BACK, BACK, 'A100', '24', 'yes'];
  const steps = [step('gpu', script, seen), step('ram', script, seen), step('verified', script, seen)];
  assert.deepEqual(await runSteps(steps, {}), { gpu: 'A100', ram: '24', verified: 'yes' });
  assert.deepEqual(seen, [
    ['gpu', undefined],
    ['ram', undefined],
    ['verified', undefined],
    ['ram', '24'], // typed "24", pressed Back: the box shows 24
    ['gpu', 'RTX 4090'],
    ['ram', '24'],
    ['verified', undefined],
  ]);
});

test('cancel returns undefined; Back on the first step stays there', async () => {
  const seen: Array<[string, string | undefined]> = [];
  assert.equal(await runSteps([step('a', ['x'], seen), async () => undefined], {}), undefined);
  assert.deepEqual(await runSteps([step('q', [BACK, 'q'], seen)], {}), { q: 'q' });
});

test('a typed reliability is taken as a fraction or a percent, and refused with a reason otherwise', () => {
  for (const [t, v] of [['0.98', 0.98], ['98', 0.98], ['98%', 0.98], ['>=0.95', 0.95], ['≥ 99.5%', 0.995], ['.9', 0.9], ['1', 1], ['0', 0]] as const) {
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
  const choices = [{ label: 'Verified hosts only', value: true }, { label: 'Include unverified hosts', value: false }];
  assert.deepEqual(typedChoice('include  UNVERIFIED hosts', choices), { ok: true, value: false, label: 'Include unverified hosts' });
  const r = typedChoice('maybe', choices);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.problem : '', /^"maybe" is not one of the choices/);
  assert.equal(choiceNamed('', choices), undefined);
});
