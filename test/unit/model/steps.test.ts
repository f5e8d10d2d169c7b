import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BACK, runSteps, type Step } from '../../../src/model/steps';

test('Back returns to the previous step with the value it saw; cancel returns undefined', async () => {
  const seen: Array<[number, string]> = [];
  const script: Array<string | typeof BACK | undefined> = ['a', 'b', BACK, BACK, 'x', 'y', 'z'];
  const step: Step<string> = async (v, n) => {
    seen.push([n, v]);
    const r = script.shift();
    return r === BACK || r === undefined ? r : v + r;
  };
  assert.equal(await runSteps([step, step, step], ''), 'xyz');
  assert.deepEqual(seen, [
    [1, ''],
    [2, 'a'],
    [3, 'ab'],
    [2, 'a'],
    [1, ''],
    [2, 'x'],
    [3, 'xy'],
  ]);
  const cancel: Step<string> = async () => undefined;
  assert.equal(await runSteps([step, cancel], ''), undefined);
  const backFirst: Array<string | typeof BACK> = [BACK, 'q'];
  const s2: Step<string> = async (v) => {
    const r = backFirst.shift();
    return r === BACK ? BACK : v + r;
  };
  assert.equal(await runSteps([s2], ''), 'q', 'Back on the first step stays there');
});
