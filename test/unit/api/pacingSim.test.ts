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
import { keyCredentials, rejection } from './helpers';
import { captureLogger } from '../../kit/log';

test('after a 429 on a label change, the next one comes a whole threshold later and is accepted', async () => {
  // the simulator enforces the service's threshold for state changes; everything else is free
  const sim = await startSimulator({
    port: 0,
    testControl: true,
    seed: 2,
    instances: 1,
    ssh: false,
    rateLimits: { update: SERVICE_THRESHOLDS_MS.update / 1000 },
  });
  try {
    const ctl = new SimControl(sim.url);
    const api = createApiClient({
      baseUrl: sim.url,
      credentials: keyCredentials(),
      log: captureLogger(),
      timeoutMs: 5000,
      pacing: 'service',
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const id = [...sim.state.instances.keys()][0]!;
    const path = `/api/v0/instances/${id}/`;
    const puts = async () => (await ctl.requests()).filter((r) => r.method === 'PUT' && r.path === path);

    await api.setInstanceLabel(id, 'first');
    // the service's 429 for a change too soon (injected, so it does not hang on how loaded the machine is)
    await ctl.fault({ kind: 'http_error', status: 429, path: `/api/v0/instances/${id}`, exact: true });
    const e = await rejection(api.setInstanceLabel(id, 'too-soon'));
    assert.equal(e.kind, 'rate_limited');
    await api.setInstanceLabel(id, 'after-the-wait');
    const [, refused, next] = await puts();
    assert.deepEqual(
      (await puts()).map((r) => r.status),
      [200, 429, 200],
    );
    // measured by the simulator's clock, from the 429 to the next request
    const gap = (next!.at - refused!.at) * 1000;
    assert.ok(gap >= SERVICE_THRESHOLDS_MS.update - 20, `the call after the 429 came ${gap.toFixed(0)} ms later, not a whole threshold`);
    assert.equal(sim.state.instances.get(id)!.label, 'after-the-wait');
  } finally {
    await sim.close();
    await closeApiTransport();
  }
});
