// The storage cost of stopped instances from what the simulator lists (the data the status bar
// and its tooltip render): a stopped instance bills its storage-only rate, not its running price
// and not nothing, and the summary adds it to the total.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../../src/sim';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import { currentRate, formatRate, isBilledForCompute } from '../../../src/core/rates';
import { summarizeCosts } from '../../../src/costs/costs';
import { keyCredentials } from '../api/helpers';
import { captureLogger } from '../../kit/log';

test('stopping an instance moves it from its running price to its storage rate in the summary', async () => {
  const sim = await startSimulator({ port: 0, seed: 5, instances: 3, ssh: false });
  try {
    const api = createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log: captureLogger(), pacing: 'off' });
    const before = (await api.listInstances()).instances;
    const target = before.find((i) => i.state === 'running')!;
    assert.ok(target, 'a running seeded instance');
    const running = summarizeCosts(before, 100);
    await api.setInstanceState(target.id, 'stopped');
    const after = (await api.listInstances()).instances;
    const stopped = after.find((i) => i.id === target.id)!;
    assert.equal(isBilledForCompute(stopped), false);
    const storage = stopped.instance?.totalHour ?? 0;
    assert.ok(storage > 0 && storage < (target.dph_total ?? 0), `storage ${storage} $/h, running ${target.dph_total} $/h`);
    assert.equal(currentRate(stopped), storage, 'a stopped instance costs its storage-only rate');

    const s = summarizeCosts(after, 100);
    const storageOfStopped = after.filter((i) => !isBilledForCompute(i)).reduce((n, i) => n + (i.instance?.totalHour ?? 0), 0);
    assert.equal(s.stopped, running.stopped + 1);
    assert.ok(Math.abs(s.idleStoragePerHour - storageOfStopped) < 1e-9, `idle storage ${s.idleStoragePerHour} vs ${storageOfStopped}`);
    assert.ok(Math.abs(s.totalPerHour - (running.totalPerHour - currentRate(target) + storage)) < 1e-9, 'the total drops to storage, not to zero');
    assert.ok(s.hoursLeft !== undefined && s.hoursLeft > running.hoursLeft!, 'the credit lasts longer, not forever');
    assert.notEqual(formatRate(storage), '$0.00/h', 'a small storage rate never reads as free');
  } finally {
    await sim.close();
    await closeApiTransport();
  }
});
