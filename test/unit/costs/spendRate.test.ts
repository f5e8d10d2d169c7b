// The account's burn rate: GET /api/v0/users/spend-rate against the simulator (today era: the
// service's figure, stopped disks included; seed era: no such path, so the rate is computed),
// the tolerant schema (no rates is no answer, never $0/h), and the store the status bar and the
// budget projection read it from (asked again when an instance stops, computed meanwhile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../../src/sim';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import { safeParse } from 'zod/mini';
import { spendRateSchema } from '../../../src/api/spendRateSchema';
import { CreditStore, rateSourceText } from '../../../src/costs/credit';
import { summarizeCosts } from '../../../src/costs/costs';
import { keyCredentials } from '../api/helpers';
import { captureLogger } from '../../kit/log';

async function withSim(era: 'today' | 'seed', fn: (api: ReturnType<typeof createApiClient>) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ port: 0, seed: 5, instances: 3, ssh: false, era });
  try {
    await fn(createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log: captureLogger(), pacing: 'off' }));
  } finally {
    await sim.close();
    await closeApiTransport();
  }
}

const near = (a: number, b: number) => Math.abs(a - b) < 1e-4;

test('today: the service bills stopped disks; spend-rate says so, and the store uses it (asked again after a stop)', async () => {
  await withSim('today', async (api) => {
    const before = (await api.listInstances()).instances;
    const target = before.find((i) => i.state === 'running')!;
    const r1 = await api.spendRate();
    assert.ok(r1, 'the today era answers');
    assert.ok(
      near(r1.totalPerHour, summarizeCosts(before, undefined).totalPerHour),
      `${r1.totalPerHour} vs the list's ${summarizeCosts(before, undefined).totalPerHour}`,
    );
    await api.setInstanceState(target.id, 'stopped');
    const after = (await api.listInstances()).instances;
    const r2 = (await api.spendRate())!;
    assert.ok(r2.gpuPerHour < r1.gpuPerHour, 'compute of the stopped one is gone');
    assert.ok(near(r2.containerStoragePerHour, r1.containerStoragePerHour), 'its disk still bills');
    assert.ok(r2.totalPerHour > 0);

    const store = new CreditStore({ api: async () => api, generation: () => 0, now: () => 1_000_000 });
    const changed = () => new Promise<void>((res) => store.onDidChange(() => res()));
    let arrived = changed();
    assert.equal(store.rate(before).source, 'computed', 'computed until the answer arrives');
    await arrived;
    assert.deepEqual(
      { ...store.rate(before), service: undefined },
      { perHour: r2.totalPerHour, source: 'service', service: undefined, at: 1_000_000 },
      'with when it was read',
    );
    assert.match(rateSourceText(store.rate(before)), /the service's own figure, stopped disks and volumes included/);
    // A stop changes the list: the store asks again at once rather than a minute later.
    await api.setInstanceState(after.find((i) => i.state === 'running' && i.id !== target.id)!.id, 'stopped');
    const stoppedTwo = (await api.listInstances()).instances;
    arrived = changed();
    store.rate(stoppedTwo);
    await arrived;
    assert.ok(store.rate(stoppedTwo).perHour < r2.totalPerHour);
  });
});

test('seed era (no spend-rate): the client reads the 404 as "not there", and the store computes the rate from the list', async () => {
  await withSim('seed', async (api) => {
    assert.equal(await api.spendRate(), undefined);
    const list = (await api.listInstances()).instances;
    let calls = 0;
    let last: Promise<unknown> = Promise.resolve();
    const counted = Object.create(api, { spendRate: { value: () => (calls++, (last = api.spendRate())) } }) as typeof api;
    const store = new CreditStore({ api: async () => counted, generation: () => 0 });
    store.rate(list);
    await new Promise((r) => setImmediate(r));
    await last;
    await new Promise((r) => setImmediate(r));
    const r = store.rate(list.map((i) => ({ ...i, state: 'stopped' as const })));
    assert.equal(r.source, 'computed');
    assert.equal(calls, 1, 'not asked again once the service said it has no such figure');
    assert.match(rateSourceText(r), /^computed from the instance list/);
  });
});

test('the schema: numeric strings read, a missing or negative main rate is no answer (never $0/h), volumes default to 0', () => {
  const ok = safeParse(spendRateSchema, {
    gpu_cost_per_hour: '0.5',
    container_storage_cost_per_hour: 0.02,
    volume_storage_cost_per_hour: 0.01,
    has_active_resources: true,
  });
  assert.deepEqual(ok.success && ok.data, {
    gpuPerHour: 0.5,
    containerStoragePerHour: 0.02,
    volumeStoragePerHour: 0.01,
    totalPerHour: 0.53,
    hasActiveResources: true,
  });
  for (const bad of [
    {},
    { gpu_cost_per_hour: 1 },
    { gpu_cost_per_hour: -1, container_storage_cost_per_hour: 0 },
    { gpu_cost_per_hour: 'x', container_storage_cost_per_hour: 0 },
  ]) {
    const r = safeParse(spendRateSchema, bad);
    assert.ok(r.success && r.data === undefined, JSON.stringify(bad));
  }
  const noVolume = safeParse(spendRateSchema, { gpu_cost_per_hour: 0, container_storage_cost_per_hour: 0.1 });
  assert.equal(noVolume.success && noVolume.data?.volumeStoragePerHour, 0);
});
