// The wait after a 429, against the simulator enforcing the service's per-endpoint thresholds
// (the Pacer's own test is the other witness): a state change refused with 429 holds the
// endpoint back for its whole threshold, so the user's next action goes through instead of
// collecting another 429.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../../src/sim';
import { SimControl } from '../../../src/sim/control';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import { SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';
import { captureLogger, keyCredentials, rejection } from './helpers';

test('after a 429 on a label change, the next one waits out the threshold and is accepted', async () => {
  // the simulator enforces the service's threshold for state changes; everything else is free
  const sim = await startSimulator({ port: 0, testControl: true, seed: 2, instances: 1, ssh: false, rateLimits: { update: SERVICE_THRESHOLDS_MS.update / 1000 } });
  try {
    const ctl = new SimControl(sim.url);
    const api = createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log: captureLogger(), timeoutMs: 5000, pacing: 'service', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const id = [...sim.state.instances.keys()][0]!;
    const path = `/api/v0/instances/${id}/`;
    const puts = async () => (await ctl.requests()).filter((r) => r.method === 'PUT' && r.path === path);

    await api.setInstanceLabel(id, 'first');
    const e = await rejection(api.setInstanceLabel(id, 'too-soon'));
    assert.equal(e.kind, 'rate_limited', 'the simulator refuses a second change inside the threshold');
    const t0 = Date.now();
    await api.setInstanceLabel(id, 'after-the-wait');
    const waited = Date.now() - t0;
    assert.ok(waited >= SERVICE_THRESHOLDS_MS.update - 100, `the call after the 429 waited ${waited} ms`);
    assert.deepEqual((await puts()).map((r) => r.status), [200, 429, 200]);
    assert.equal(sim.state.instances.get(id)!.label, 'after-the-wait');

    // once served, the penalty is gone: a change well after the threshold is not delayed
    await new Promise((r) => setTimeout(r, SERVICE_THRESHOLDS_MS.update + 100));
    const t1 = Date.now();
    await api.setInstanceLabel(id, 'later');
    assert.ok(Date.now() - t1 < SERVICE_THRESHOLDS_MS.update / 2, 'no wait without a 429');
  } finally {
    await sim.close();
    await closeApiTransport();
  }
});
