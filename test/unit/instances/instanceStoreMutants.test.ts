// The instance store's rules one by one, each written to fail if one small change were planted in
// src/instances/instanceStore.ts (the `instances` mutation group, BENCHMARKS.md): which rows poll
// fast, an upsert of a listed row, a row dropped and adopted again, the status events, the reads
// count and what dispose ends. A fake list and fake timers: no waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { PolledInstanceStore, isTransitional } from '../../../src/instances/instanceStore';
import { DEFAULT_POLLER_CONFIG, URGENT_INTERVAL_MS } from '../../../src/core/poller';
import { FakeTimers, flush } from '../../kit/clock';
import { instanceIn as inst } from '../../kit/fixtures';

const FAST = 10_000;
const SLOW = 3_600_000;

/** A hidden window's store over `h.list`, on fake timers: SLOW when steady, FAST while something moves. */
function harness(list: Instance[]) {
  const h = { list, fail: false, calls: 0, timers: new FakeTimers(), store: undefined as unknown as PolledInstanceStore, status: 0, changes: 0 };
  h.store = new PolledInstanceStore({
    api: async () =>
      ({
        listInstances: async () => {
          h.calls++;
          if (h.fail) throw new Error('connection reset');
          return { instances_found: h.list.length, instances: h.list };
        },
      }) as never,
    isSignedIn: () => true,
    generation: () => 0,
    config: () => ({ ...DEFAULT_POLLER_CONFIG, intervalMs: FAST, hiddenIntervalMs: SLOW, idlePauseMs: 3_600_000 }),
    describeError: (e) => String(e),
    timers: h.timers,
    random: () => 0,
  });
  h.store.onDidChangeStatus(() => h.status++);
  h.store.onDidChange(() => h.changes++);
  return h;
}

test('on its way: a state in transition, or a state the user asked to leave; settled otherwise', () => {
  const cases: Array<[Instance['state'], Instance['intended_status'], boolean]> = [
    ['stopped', 'running', true],
    ['running', 'stopped', true],
    ['loading', 'stopped', true],
    ['provisioning', 'running', true],
    ['running', 'running', false],
    ['stopped', 'stopped', false],
    ['exited', 'stopped', false],
    ['running', null, false],
    ['stopped', undefined, false],
  ];
  for (const [state, intended_status, want] of cases)
    assert.equal(isTransitional(inst(1, state, { intended_status })), want, `${state}, intended ${intended_status}`);
});

test('a watched row polls fast until a list shows it settled; a row still moving keeps it fast', async () => {
  const h = harness([inst(1, 'running', { intended_status: 'stopped' }), inst(2, 'running')]);
  h.store.poller.start();
  await flush();
  assert.equal(h.timers.nextDelay(), FAST, 'one row on its way is enough');
  h.list = [inst(1, 'stopped'), inst(2, 'running')];
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), SLOW, 'all settled: slow');
  h.store.watch(1);
  assert.equal(h.timers.nextDelay(), FAST, 'watched after an action');
  h.list = [inst(1, 'stopped', { intended_status: 'running' }), inst(2, 'running')];
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), URGENT_INTERVAL_MS, 'the list shows it starting: faster still (its SSH entry follows the list)');
  h.list = [inst(1, 'running'), inst(2, 'running')];
  await h.timers.advance(URGENT_INTERVAL_MS);
  assert.equal(h.timers.nextDelay(), SLOW, 'settled: no longer watched');
  h.store.watch(2);
  assert.equal(h.timers.nextDelay(), FAST, 'watched while the list still shows it settled (the service is slow to show the action)');
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), SLOW, 'the next list shows it settled: not watched');
  h.store.watch(3);
  assert.equal(h.timers.nextDelay(), FAST);
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), SLOW, 'a watched id the list does not show is not watched forever');
  h.store.dispose();
});

test('a started machine (watched, meant to run, not running yet): the list every 2 s until it runs, then the interval; a stop is not urgent; an error still backs off', async () => {
  const h = harness([inst(1, 'stopped'), inst(2, 'running')]);
  h.store.poller.setVisible(true);
  h.store.poller.start();
  await flush();
  assert.equal(h.timers.nextDelay(), FAST);
  h.store.watch(2);
  h.list = [inst(1, 'stopped'), inst(2, 'running', { intended_status: 'stopped' })];
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), FAST, 'a stopping machine: the usual interval');
  h.list = [inst(1, 'stopped'), inst(2, 'stopped', { intended_status: 'stopped' })];
  await h.timers.advance(FAST);
  h.store.watch(1);
  h.list = [inst(1, 'stopped', { intended_status: 'running' }), inst(2, 'stopped', { intended_status: 'stopped' })];
  await h.timers.advance(FAST);
  assert.equal(h.timers.nextDelay(), URGENT_INTERVAL_MS, 'starting: every 2 s');
  const before = h.calls;
  h.list = [inst(1, 'loading', { intended_status: 'running' }), inst(2, 'stopped', { intended_status: 'stopped' })];
  await h.timers.advance(URGENT_INTERVAL_MS);
  assert.equal(h.calls, before + 1);
  assert.equal(h.timers.nextDelay(), URGENT_INTERVAL_MS, 'loading: still every 2 s');
  h.fail = true;
  await h.timers.advance(URGENT_INTERVAL_MS);
  assert.ok(h.timers.nextDelay()! >= FAST, 'a failed read backs off as before');
  h.fail = false;
  h.list = [inst(1, 'running', { intended_status: 'running' }), inst(2, 'stopped', { intended_status: 'stopped' })];
  await h.timers.advance(h.timers.nextDelay()!);
  assert.equal(h.timers.nextDelay(), FAST, 'running: back to the interval');
  h.store.dispose();
});

test('an upsert of a listed row replaces it in place (the first row too), and it goes after two misses like any listed row', async () => {
  const h = harness([inst(1, 'running'), inst(2, 'running')]);
  h.store.poller.start();
  await flush();
  h.store.upsert(inst(1, 'stopped'));
  assert.deepEqual(
    h.store.instances.map((i) => [i.id, i.state]),
    [
      [1, 'stopped'],
      [2, 'running'],
    ],
  );
  assert.equal(h.store.get(1)?.state, 'stopped');
  h.list = [inst(2, 'running')];
  await h.store.refresh();
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [2],
    'not kept a minute as if it were a new creation',
  );
  h.store.dispose();
});

test('a dropped row put back (a late machine adopted) starts its miss count over', async () => {
  const h = harness([inst(1, 'running'), inst(2, 'running')]);
  h.store.poller.start();
  await flush();
  h.list = [inst(1, 'running')];
  await h.store.refresh();
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
  );
  h.store.upsert(inst(2, 'running'));
  await h.timers.advance(61_000);
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 2],
    'one miss after the minute proves nothing',
  );
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
  );
  h.store.dispose();
});

test('status events: the first list, an error and the list after it, not every list; reads counts successful lists only', async () => {
  const h = harness([inst(1, 'running')]);
  assert.equal(h.store.loaded, false, 'nothing loaded before the first list');
  assert.equal(h.store.get(1), undefined);
  h.store.poller.start();
  await flush();
  assert.equal(h.store.loaded, true);
  assert.equal(h.status, 1, 'the first load');
  assert.equal(h.store.reads, 1);
  await h.store.refresh();
  await h.store.refresh();
  assert.equal(h.status, 1, 'a list after a list: no status change');
  assert.equal(h.store.reads, 3);
  h.store.upsert(inst(2, 'running'));
  h.store.remove(2);
  assert.equal(h.store.reads, 3, 'an upsert or a remove is not a read');
  h.fail = true;
  await h.store.refresh();
  assert.equal(h.status, 2, 'the error');
  h.fail = false;
  await h.store.refresh();
  assert.equal(h.status, 3, 'the error cleared');
  assert.equal(h.store.error, undefined);
  await h.store.refresh();
  assert.equal(h.status, 3);
  h.store.reset();
  assert.equal(h.store.reads, 0);
  assert.equal(h.store.loaded, false);
  h.store.dispose();
});

test('removing an id that is not listed changes nothing; an empty label clears the pending one', () => {
  const h = harness([]);
  h.store.upsert(inst(4, 'running'));
  const before = h.changes;
  h.store.remove(9);
  assert.equal(h.changes, before);
  h.store.setPending(4, 'Stopping…');
  h.store.setPending(4, '');
  assert.equal(h.store.pending(4), undefined);
  h.store.dispose();
});

test('dispose ends the polling: no request after it', async () => {
  const h = harness([inst(1, 'running')]);
  h.store.poller.start();
  await flush();
  const calls = h.calls;
  h.store.dispose();
  await h.timers.advance(10 * SLOW);
  assert.equal(h.calls, calls);
});
