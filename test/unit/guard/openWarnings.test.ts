import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenWarnings } from '../../../src/guard/vscode/openWarnings';

/** Whether the promise has settled (after the microtasks queued so far). */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => undefined,
  );
  await new Promise<void>((r) => setImmediate(r));
  return done;
}

test('a warning stays open until the monitor withdraws that planned act; another key does not close it', async () => {
  const open = new OpenWarnings<string>();
  const w = open.add(7, 'idle:100', 'a');
  assert.equal(open.get(w.seq)?.data, 'a');
  assert.equal(open.withdraw(7, 'cap'), false, 'another planned act of the instance');
  assert.equal(open.withdraw(8, 'idle:100'), false, 'another instance');
  assert.equal(await settled(w.closed), false);
  assert.equal(open.withdraw(7, 'idle:100'), true);
  assert.equal(await settled(w.closed), true);
  assert.equal(open.get(w.seq), undefined, 'its links then name nothing');
  assert.equal(open.withdraw(7, 'idle:100'), false, 'closed once');
});

test('a new warning for the same instance (a new idle stretch) replaces the old one; others stay', async () => {
  const open = new OpenWarnings<string>();
  const first = open.add(7, 'idle:100', 'first');
  const other = open.add(9, 'idle:100', 'other');
  const second = open.add(7, 'idle:200', 'second');
  assert.notEqual(first.seq, second.seq);
  assert.equal(await settled(first.closed), true);
  assert.equal(await settled(second.closed), false);
  assert.equal(await settled(other.closed), false);
  assert.equal(open.size, 2);
});

test('dismissed (Cancel) or all closed (the extension stops): every promise resolves; links only name open warnings', async () => {
  const open = new OpenWarnings<string>();
  const a = open.add(1, 'k', 'a');
  const b = open.add(2, 'k', 'b');
  assert.equal(open.closeSeq(a.seq), true);
  assert.equal(open.closeSeq(a.seq), false);
  assert.equal(await settled(a.closed), true);
  for (const bad of [undefined, '1', b.seq + 1, { seq: b.seq }]) assert.equal(open.get(bad), undefined);
  open.closeAll();
  assert.equal(await settled(b.closed), true);
  assert.equal(open.size, 0);
});
