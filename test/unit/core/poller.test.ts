import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { PolledInstanceStore } from '../../../src/instances/instanceStore';
import { DEFAULT_POLLER_CONFIG } from '../../../src/core/poller';
import { FakeTimers, flush } from '../../kit/clock';
import { instanceIn } from '../../kit/fixtures';

const inst = instanceIn;

interface Harness {
  timers: FakeTimers;
  store: PolledInstanceStore;
  calls: number;
  signedIn: boolean;
  gen: number;
  respond: Array<(() => Promise<Instance[]>) | undefined>;
  list: Instance[];
  inFlightMax: number;
}

function harness(initial: Instance[] = [inst(1, 'running')], inFlightIds?: () => readonly number[]): Harness {
  const h: Harness = {
    timers: new FakeTimers(),
    store: undefined as unknown as PolledInstanceStore,
    calls: 0,
    signedIn: true,
    gen: 0,
    respond: [],
    list: initial,
    inFlightMax: 0,
  };
  let inFlight = 0;
  h.store = new PolledInstanceStore({
    api: async () =>
      ({
        listInstances: async () => {
          h.calls++;
          inFlight++;
          h.inFlightMax = Math.max(h.inFlightMax, inFlight);
          try {
            const custom = h.respond.shift();
            const instances = custom ? await custom() : h.list;
            return { instances_found: instances.length, instances };
          } finally {
            inFlight--;
          }
        },
      }) as never,
    isSignedIn: () => h.signedIn,
    generation: () => h.gen,
    config: () => ({ ...DEFAULT_POLLER_CONFIG, intervalMs: 10_000, hiddenIntervalMs: 60_000, idlePauseMs: 300_000, maxBackoffMs: 300_000 }),
    describeError: (e) => (e instanceof Error ? e.message : String(e)),
    timers: h.timers,
    random: () => 0,
    ...(inFlightIds ? { inFlight: inFlightIds } : {}),
  });
  return h;
}

test('hidden and steady: slow interval; visible: fast interval; one list call per interval for many instances', async () => {
  const h = harness([inst(1, 'running'), inst(2, 'running'), inst(3, 'stopped')]);
  h.store.poller.start();
  await flush();
  assert.equal(h.calls, 1);
  assert.equal(h.store.instances.length, 3);
  assert.equal(h.timers.nextDelay(), 60_000);
  await h.timers.advance(59_000);
  assert.equal(h.calls, 1);
  await h.timers.advance(1_000);
  assert.equal(h.calls, 2, 'one request per interval covers all three instances');
  h.store.poller.setVisible(true);
  await flush();
  assert.equal(h.calls, 3, 'becoming visible refreshes at once');
  assert.equal(h.timers.nextDelay(), 10_000);
  await h.timers.advance(30_000);
  assert.equal(h.calls, 6);
  h.store.poller.setVisible(false);
  assert.equal(h.timers.nextDelay(), 60_000);
  h.store.dispose();
});

test('transitional instances poll fast while hidden, and slow down once settled', async () => {
  const h = harness([inst(1, 'loading')]);
  h.store.poller.start();
  await flush();
  assert.equal(h.timers.nextDelay(), 10_000);
  h.list = [inst(1, 'running')];
  await h.timers.advance(10_000);
  assert.equal(h.calls, 2);
  assert.equal(h.timers.nextDelay(), 60_000);
  // watch() after an action keeps the fast interval until the next list shows it settled
  h.list = [inst(1, 'running', { intended_status: 'stopped' })];
  h.store.watch(1);
  assert.equal(h.timers.nextDelay(), 10_000);
  h.store.dispose();
});

test('no request while signed out; signing in fetches at once', async () => {
  const h = harness();
  h.signedIn = false;
  h.store.poller.start();
  await h.timers.advance(600_000);
  assert.equal(h.calls, 0);
  assert.equal(h.timers.scheduled, 0);
  h.signedIn = true;
  h.gen++;
  h.store.reset();
  await flush();
  assert.equal(h.calls, 1);
  h.store.dispose();
});

test('429/network errors back off exponentially and surface one error; success clears it', async () => {
  const h = harness();
  const errors: string[] = [];
  h.store.onDidChangeStatus(() => errors.push(h.store.error?.message ?? 'none'));
  const fail = () => Promise.reject(Object.assign(new Error('Too many requests; retrying later.'), { kind: 'rate_limited' }));
  h.respond.push(fail, fail, fail);
  h.store.poller.setVisible(true);
  h.store.poller.start();
  await flush();
  assert.equal(h.calls, 1);
  assert.equal(h.store.error?.failures, 1);
  assert.equal(h.timers.nextDelay(), 10_000);
  await h.timers.advance(10_000);
  assert.equal(h.store.error?.failures, 2);
  assert.equal(h.timers.nextDelay(), 20_000);
  await h.timers.advance(20_000);
  assert.equal(h.store.error?.failures, 3);
  assert.equal(h.timers.nextDelay(), 40_000);
  await h.timers.advance(40_000);
  assert.equal(h.calls, 4);
  assert.equal(h.store.error, undefined);
  assert.equal(h.timers.nextDelay(), 10_000, 'back to the normal interval');
  assert.deepEqual(errors.at(-1), 'none');
  h.store.dispose();
});

test('a response that arrives after the key changed is dropped; one request in flight', async () => {
  const h = harness();
  let release!: (v: Instance[]) => void;
  h.respond.push(() => new Promise<Instance[]>((r) => (release = r)));
  h.store.poller.start();
  await flush();
  assert.equal(h.calls, 1);
  // refresh while in flight joins the same request
  const joined = Promise.all([h.store.refresh(), h.store.refresh()]);
  await flush();
  assert.equal(h.calls, 1);
  // the key changes: the old response must not show up
  h.gen++;
  h.list = [inst(9, 'running')];
  h.store.reset();
  await flush();
  assert.equal(h.calls, 1, 'waits for the old request instead of sending a second one');
  release([inst(1, 'running', { label: 'old account' })]);
  await flush();
  assert.equal(h.calls, 2);
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [9],
  );
  assert.equal(h.inFlightMax, 1);
  await joined;
  h.store.dispose();
});

test('pauses after a long unfocused period and refreshes at once on focus', async () => {
  const h = harness();
  h.store.poller.setVisible(true);
  h.store.poller.start();
  await flush();
  h.store.poller.setFocused(false);
  await h.timers.advance(300_000);
  const callsWhenPaused = h.calls;
  await h.timers.advance(600_000);
  assert.equal(h.calls, callsWhenPaused, 'no polling while unfocused for long');
  assert.equal(h.timers.scheduled, 0);
  h.store.poller.setFocused(true);
  await flush();
  assert.equal(h.calls, callsWhenPaused + 1);
  h.store.dispose();
});

test('store: upsert/remove without waiting for a poll; pending labels; sorted by id', async () => {
  const h = harness([inst(5, 'running'), inst(2, 'stopped')]);
  h.store.poller.start();
  await flush();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [2, 5],
  );
  let changes = 0;
  h.store.onDidChange(() => changes++);
  h.store.upsert(inst(3, 'provisioning'));
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [2, 3, 5],
  );
  assert.equal(h.timers.nextDelay(), 60_000, 'nudge happens via watch(), not upsert');
  h.store.watch(3);
  assert.equal(h.timers.nextDelay(), 10_000);
  h.store.setPending(5, 'Stopping…');
  assert.equal(h.store.pending(5), 'Stopping…');
  h.store.remove(5);
  assert.equal(h.store.get(5), undefined);
  assert.equal(h.store.pending(5), undefined);
  assert.equal(changes, 2);
  h.store.dispose();
});

test('a row missing from one walk is removed only when the next walk confirms it; a just-created row stays its first minute', async () => {
  const h = harness([inst(1, 'running'), inst(2, 'running')]);
  h.store.poller.start();
  await flush();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 2],
  );
  h.list = [inst(1, 'running')];
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 2],
    'one walk without it proves nothing',
  );
  h.list = [inst(1, 'running'), inst(2, 'running')];
  await h.store.refresh();
  h.list = [inst(1, 'running')];
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 2],
    'the miss count starts over once it was seen again',
  );
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
    'two walks in a row without it: gone',
  );

  // A creation puts its record before the service lists it: kept through the first minute.
  h.store.upsert(inst(3, 'provisioning'));
  await h.store.refresh();
  await h.store.refresh();
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 3],
  );
  await h.timers.advance(61_000);
  await h.store.refresh();
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
    'after the minute two misses settle it',
  );
  // An explicit removal (destroy confirmed) is immediate.
  h.list = [inst(1, 'running'), inst(4, 'running')];
  await h.store.refresh();
  h.store.remove(4);
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
  );
});

test('the row of a rental in flight stays however late the list shows it (a late machine keeps its row); once settled, two misses drop it', async () => {
  let flying: number[] = [5];
  const h = harness([inst(1, 'running')], () => flying);
  h.store.poller.start();
  await flush();
  h.store.upsert(inst(5, 'provisioning'));
  await h.timers.advance(30 * 60_000);
  for (let i = 0; i < 5; i++) await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1, 5],
    'still in flight after 30 minutes and five walks without it',
  );
  flying = [];
  await h.store.refresh();
  await h.store.refresh();
  assert.deepEqual(
    h.store.instances.map((i) => i.id),
    [1],
  );
});
