// Set Demo GPU Load over real HTTP through the API client: the simulator in demo mode takes it
// from the account's key and its fake nvidia-smi and the list report it; other keys and a
// simulator outside the demo refuse; a bad percentage is never sent. The choices and words too.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startSim } from '../../kit/sim';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import { gpuUtilFile } from '../../../src/sim/sandbox';
import { BUSY_LOAD, IDLE_LOAD, LOAD_CHOICES, loadSetMessage, parseLoad } from '../../../src/demo/demoGpuLoad';
import { keyCredentials } from '../api/helpers';
import { captureLogger } from '../../kit/log';
import { isApiError } from '../../../src/api/errors';

const client = (url: string, key = 'sim-api-key') => {
  const log = captureLogger();
  return { log, api: createApiClient({ baseUrl: url, credentials: keyCredentials(key), log, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }) };
};

test('demo GPU load: set through the client in demo mode (nvidia-smi and the list follow); refused elsewhere', async () => {
  const demo = await startSim({ demoInbox: true, instances: 1, bootSeconds: 0 });
  const plain = await startSim({ instances: 1, bootSeconds: 0 });
  try {
    const { api, log } = client(demo.url);
    const [inst] = (await api.listInstances()).instances;
    assert.ok(inst, 'a seeded demo instance');
    assert.deepEqual(await api.setDemoGpuLoad(inst.id, BUSY_LOAD), { success: true });
    assert.equal(readFileSync(gpuUtilFile(demo.state, inst.id), 'utf8'), '90\n', "what the instance's nvidia-smi prints");
    assert.equal((await api.showInstance(inst.id)).gpu_util, 90, 'and the record');
    await api.setDemoGpuLoad(inst.id, IDLE_LOAD);
    assert.equal(readFileSync(gpuUtilFile(demo.state, inst.id), 'utf8'), '0\n');
    assert.ok(!log.lines.some((l) => l.includes('sim-api-key')), 'the key never reaches the log');

    // Another key, an unknown instance, a bad percentage (not sent), and no demo at all.
    await assert.rejects(client(demo.url, 'wrong-key').api.setDemoGpuLoad(inst.id, 0), (e) => isApiError(e) && e.kind === 'auth');
    await assert.rejects(api.setDemoGpuLoad(inst.id + 1000, 0), (e) => isApiError(e) && e.status === 404);
    const sent = demo.state.requests.length;
    await assert.rejects(api.setDemoGpuLoad(inst.id, 101), (e) => isApiError(e) && e.kind === 'invalid_request' && /0 to 100/.test(e.message));
    await assert.rejects(api.setDemoGpuLoad(inst.id, Number.NaN), (e) => isApiError(e) && e.kind === 'invalid_request');
    assert.equal(demo.state.requests.length, sent, 'nothing sent for a bad percentage');
    const [other] = (await client(plain.url).api.listInstances()).instances;
    await assert.rejects(
      client(plain.url).api.setDemoGpuLoad(other!.id, 0),
      (e) => isApiError(e) && e.status === 404,
      'outside the demo the path does not exist',
    );
  } finally {
    await demo.close();
    await plain.close();
    await closeApiTransport();
  }
});

test('demo GPU load: the choices, a typed percentage, and what the guard will make of it', () => {
  assert.deepEqual(
    LOAD_CHOICES.map((c) => c.util),
    [0, 90, undefined],
  );
  assert.deepEqual(parseLoad(' 35 %'), { util: 35 });
  assert.deepEqual(parseLoad('12.5'), { util: 12.5 });
  for (const bad of ['', 'abc', '-1', '101', '1e2', '50%%']) assert.ok('problem' in parseLoad(bad), bad);
  const guard = { idleMinutes: 2, gpuUtilBelow: 5, action: 'stop' as const };
  assert.match(
    loadSetMessage('box', 0, guard),
    /^Demo: the GPU of box now reports 0 %\. Its idle guard counts that as idle \(below 5 %\): it warns first, then stops the instance after 2 idle min/,
  );
  assert.match(loadSetMessage('box', 90, guard), /counts that as busy \(5 % or more\) and keeps the instance running/);
  assert.match(loadSetMessage('box', 0, undefined), /has no idle guard/);
});
