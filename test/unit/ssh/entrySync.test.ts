import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import type { Instance } from '../../../src/api/types';
import { syncHarness } from './syncHarness';
import { instanceRecord } from '../../kit/fixtures';

const inst = (id: number, p: Partial<Instance> = {}): Instance => instanceRecord(id, { label: 'x', ssh_host: 'ssh1.example.net', ssh_port: 30000 + id, ...p });

const harness = () => syncHarness();

test('a burst of list changes is reconciled once; moves and destroys follow the list', async () => {
  const h = harness();
  try {
    await h.writer.writeEntry(inst(1), {});
    await h.writer.writeEntry(inst(2), {});
    for (let i = 0; i < 5; i++) h.set([inst(1, { ssh_port: 31111 })]);
    await h.sync.flush();
    assert.equal(h.state.writers, 1, 'debounced into one reconcile');
    assert.deepEqual(
      (await h.writer.entries()).map((e) => [e.id, e.port]),
      [
        [1, 31111],
        [2, 30002],
      ],
      'one read without instance 2 is not proof it is gone',
    );
    h.set([inst(1, { ssh_port: 31111 })]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => [e.id, e.port]),
      [[1, 31111]],
      'the next read without it removes it',
    );
  } finally {
    h.done();
  }
});

test('a poll that changes nothing the entries depend on does not touch the files', async () => {
  const h = harness();
  try {
    h.set([inst(1)]);
    await h.sync.flush();
    h.set([inst(1, { cpu_util: 0.5 })]);
    await h.sync.flush();
    assert.equal(h.state.writers, 1, 'same ids, states, hosts, ports and labels: no second reconcile');
    h.set([inst(1, { ssh_port: 32222 })]);
    await h.sync.flush();
    assert.equal(h.state.writers, 2, 'a moved instance is reconciled');
  } finally {
    h.done();
  }
});

test('only registered running instances get new entries', async () => {
  const h = harness();
  try {
    h.state.registered = { '7': { user: 'ubuntu' }, '8': {} };
    h.set([inst(7), inst(8, { state: 'loading', actual_status: 'loading' }), inst(9)]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => [e.id, e.user]),
      [[7, 'ubuntu']],
    );
    h.set([inst(7), inst(8), inst(9)]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [7, 8],
    );
  } finally {
    h.done();
  }
});

test('nothing is removed while signed out / disabled or before the list has loaded', async () => {
  const h = harness();
  try {
    await h.writer.writeEntry(inst(1), {});
    h.state.enabled = false;
    h.set([]);
    await h.sync.flush();
    h.state.enabled = true;
    h.store.loaded = false;
    h.set([]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [1],
    );
    h.store.loaded = true;
    h.set([]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [1],
      'one loaded read without it is not proof it is gone',
    );
    h.set([]);
    await h.sync.flush();
    assert.deepEqual(await h.writer.entries(), []);
  } finally {
    h.done();
  }
});

test('an instance missing from one list read keeps its entry and pinned host key; missing from the next read too, both go', async () => {
  const h = harness();
  try {
    await h.writer.writeEntry(inst(1), {});
    await h.writer.writeEntry(inst(2), {});
    const pinned = `[ssh1.example.net]:30002 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinnedPinnedPinnedPinnedPinnedPinned00\n`;
    writeFileSync(h.writer.knownHostsPath, pinned, { mode: 0o600 });
    h.set([inst(1)]); // instance 2 not in this read: "not found" is not proof of gone
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [1, 2],
    );
    assert.equal(readFileSync(h.writer.knownHostsPath, 'utf8'), pinned);
    h.set([inst(1), inst(2)]); // back: nothing was lost
    await h.sync.flush();
    h.set([inst(1)]);
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [1, 2],
      'the count starts over once it was seen again',
    );
    h.set([inst(1)]); // absent from two reads in a row: gone
    await h.sync.flush();
    assert.deepEqual(
      (await h.writer.entries()).map((e) => e.id),
      [1],
    );
    assert.equal(readFileSync(h.writer.knownHostsPath, 'utf8'), '');
  } finally {
    h.done();
  }
});
