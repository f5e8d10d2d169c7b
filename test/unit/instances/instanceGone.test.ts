// Every record kept per instance in globalState (the create flow's SSH options, the guard's
// "don't warn again") goes once its instance is known gone, through one hook: destroyed by us
// with the service's yes, or left out of two successful list reads in a row. One read that
// misses it, a failed read, a creation still in flight, the demo or a signed-out window prove
// nothing, and those records stay. Against the simulator, with the real polled instance store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance, ServiceApi } from '../../../src/api/types';

import { InstanceGone, idList, inFlightIds, recordsById } from '../../../src/instances/instanceGone';
import { PolledInstanceStore } from '../../../src/instances/instanceStore';
import { DEFAULT_POLLER_CONFIG } from '../../../src/core/poller';
import { GUARD_NO_WARN_KEY, INFLIGHT_STATE_KEY, SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';
import { type SshOptionsByInstance } from '../../../src/ssh/sshTypes';
import { runCreateFlow } from '../../../src/create/createFlow';
import { silentLogger } from '../../kit/log';
import { harness, template, useFlowSim } from '../create/flowHarness';
import { MemoryState } from '../../kit/state';

useFlowSim();

interface World {
  api: ServiceApi;
  state: MemoryState;
  store: PolledInstanceStore;
  gone: InstanceGone;
  /** What the next list reads do: drop these ids from the answer, or fail. */
  hide: Set<number>;
  fail: boolean;
  judging: boolean;
  read(): Promise<void>;
  ssh(): string[];
  noWarn(): number[];
  done(): void;
}

async function rented(state: MemoryState): Promise<{ api: ServiceApi; id: number }> {
  const h = harness({ state });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  return { api: h.api, id: (r as { instance: Instance }).instance.id };
}

function world(api: ServiceApi, state: MemoryState): World {
  const w = { api, state, hide: new Set<number>(), fail: false, judging: true } as World;
  w.store = new PolledInstanceStore({
    api: async () =>
      ({
        listInstances: async () => {
          if (w.fail) throw new Error('connection reset');
          const r = await api.listInstances();
          return { ...r, instances: r.instances.filter((i) => !w.hide.has(i.id)) };
        },
      }) as unknown as ServiceApi,
    isSignedIn: () => true,
    generation: () => 0,
    config: () => ({ ...DEFAULT_POLLER_CONFIG, intervalMs: 3_600_000, hiddenIntervalMs: 3_600_000, idlePauseMs: 3_600_000 }),
    describeError: (e) => String(e),
  });
  w.gone = new InstanceGone({ instances: w.store, judging: () => w.judging, inFlight: () => inFlightIds(state), log: silentLogger });
  w.gone.register(recordsById('SSH options', state, SSH_OPTIONS_STATE_KEY));
  w.gone.register(idList("guard: don't warn again", state, GUARD_NO_WARN_KEY));
  w.read = async () => {
    await w.store.refresh().catch(() => undefined);
    await w.gone.settled();
  };
  w.ssh = () => Object.keys(state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {}).sort();
  w.noWarn = () => state.get<number[]>(GUARD_NO_WARN_KEY) ?? [];
  w.done = () => (w.gone.dispose(), w.store.dispose());
  return w;
}

/** Two instances rented with a template, both with "don't warn again", after the first read. */
async function twoRented() {
  const state = new MemoryState();
  const a = await rented(state);
  const b = await rented(state);
  await state.update(GUARD_NO_WARN_KEY, [a.id, b.id]);
  const w = world(a.api, state);
  await w.read();
  return { a, b, w, state };
}

test('an instance destroyed elsewhere loses its SSH options and "don\'t warn again" only after two list reads leave it out; another instance keeps its own', async () => {
  const { a, b, w } = await twoRented();
  try {
    assert.deepEqual(w.ssh(), [String(a.id), String(b.id)].sort());
    await a.api.destroyInstance(a.id); // from the web console, another window, the CLI…
    await w.read();
    assert.deepEqual(w.ssh(), [String(a.id), String(b.id)].sort(), 'one read that misses it proves nothing');
    assert.deepEqual(w.noWarn(), [a.id, b.id]);
    for (let k = 0; k < 3 && w.ssh().includes(String(a.id)); k++) await w.read();
    assert.deepEqual(w.ssh(), [String(b.id)], 'gone after two reads: its options go, the live one stays');
    assert.deepEqual(w.noWarn(), [b.id]);
  } finally {
    w.done();
  }
});

test('reads that miss a live instance one at a time, and failed reads, never drop its records', async () => {
  const state = new MemoryState();
  const a = await rented(state);
  await state.update(GUARD_NO_WARN_KEY, [a.id]);
  const w = world(a.api, state);
  try {
    await w.read();
    for (let k = 0; k < 4; k++) {
      w.hide.add(a.id);
      await w.read(); // a lagging page leaves it out
      w.hide.delete(a.id);
      w.fail = true;
      await w.read(); // a failed read is no read
      w.fail = false;
      await w.read(); // listed again: it starts over
    }
    assert.deepEqual(w.ssh(), [String(a.id)]);
    assert.deepEqual(w.noWarn(), [a.id]);
    // Upserts and removes fire the store's change event too, but are no reads: an instance one
    // read has missed keeps its records through them; only a second read drops them.
    w.hide.add(a.id);
    await w.read(); // the store keeps a row one read misses,
    await w.read(); // so this is the first read whose list leaves it out
    for (let k = 0; k < 3; k++) {
      w.store.upsert({ id: 999_999, state: 'loading', actual_status: 'loading' } as Instance);
      w.store.remove(999_999);
      await w.gone.settled();
    }
    assert.deepEqual(w.ssh(), [String(a.id)], 'still only one read has missed it');
    await w.read();
    assert.deepEqual(w.ssh(), [], 'the second read that leaves it out does');
  } finally {
    w.done();
  }
});

test("switching to another account's API key keeps the first account's records: its instances are not in this account's list, which proves nothing about them", async () => {
  const { a, b, w } = await twoRented();
  try {
    w.store.reset(); // the connection changed (Set API Key with another account's key)
    w.hide.add(a.id);
    w.hide.add(b.id); // the other account lists neither
    for (let k = 0; k < 4; k++) await w.read();
    assert.deepEqual(w.ssh(), [String(a.id), String(b.id)].sort());
    assert.deepEqual(w.noWarn(), [a.id, b.id]);
    // Back on the first account: its instances are listed, and one destroyed elsewhere now goes after two reads.
    w.store.reset();
    w.hide.clear();
    await w.read();
    await a.api.destroyInstance(a.id);
    for (let k = 0; k < 3; k++) await w.read();
    assert.deepEqual(w.ssh(), [String(b.id)]);
  } finally {
    w.done();
  }
});

test("records of instances never listed under this connection stay (destroyed while VS Code was closed, or another account's); a creation in flight keeps its records however many reads miss it", async () => {
  const state = new MemoryState();
  const a = await rented(state);
  // Months ago: an instance long destroyed, and a creation this window has not settled yet.
  const old = 7_000_001;
  const flying = 7_000_002;
  await state.update(SSH_OPTIONS_STATE_KEY, {
    ...state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY),
    [old]: { user: 'me' },
    [flying]: { remoteFolder: '/w' },
  });
  await state.update(INFLIGHT_STATE_KEY, [{ instanceId: flying, label: 'x', templatePath: 't', ssh: { remoteFolder: '/w' } }]);
  await state.update(GUARD_NO_WARN_KEY, [old, flying]);
  const w = world(a.api, state);
  try {
    for (let k = 0; k < 4; k++) await w.read();
    assert.deepEqual(w.ssh(), [String(a.id), String(old), String(flying)].sort(), 'never listed here: nothing proves it gone');
    assert.deepEqual(w.noWarn(), [old, flying]);
    assert.equal(inFlightIds(state)[0], flying);
  } finally {
    w.done();
  }
});

test('destroyed by us: its records go at once; not while the hook may not judge (demo, signed out), and not for a creation in flight', async () => {
  const { a, b, w, state } = await twoRented();
  try {
    assert.equal((await a.api.destroyInstance(a.id)).success, true);
    await w.gone.destroyed(a.id);
    assert.deepEqual(w.ssh(), [String(b.id)]);
    assert.deepEqual(w.noWarn(), [b.id]);

    // The demo's list never shows the real account's instances: nothing it reads or destroys counts.
    w.judging = false;
    await w.gone.destroyed(b.id);
    w.hide.add(b.id);
    for (let k = 0; k < 4; k++) await w.read();
    assert.deepEqual(w.ssh(), [String(b.id)]);
    // Back on the account: the reads before prove nothing, two new ones do.
    w.judging = true;
    w.hide.delete(b.id);
    await w.read();
    await state.update(INFLIGHT_STATE_KEY, [{ instanceId: b.id, label: 'x', templatePath: 't', ssh: {} }]);
    await w.gone.destroyed(b.id);
    assert.deepEqual(w.ssh(), [String(b.id)], 'a creation in flight is settled by the create flow');
  } finally {
    w.done();
  }
});
