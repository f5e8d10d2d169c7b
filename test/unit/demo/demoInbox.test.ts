// The demo's inbox over real HTTP: the code the simulator "e-mailed" is what the hint shows;
// other keys get nothing, and without demo mode the endpoint does not exist.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { startSim } from '../../kit/sim';
import { closeApiTransport } from '../../../src/api/client';
import { inboxHint, newestCode, simulatorInbox } from '../../../src/demo/demoInbox';
import { keyCredentials } from '../api/helpers';
import { captureLogger } from '../../kit/log';
import { createApiClient } from '../../../src/api/client';

test('demo inbox: the e-mailed code, for the account key only; absent outside the demo', async () => {
  const sim = await startSim({ demoInbox: true });
  const plain = await startSim();
  try {
    const api = createApiClient({
      baseUrl: sim.url,
      credentials: keyCredentials(),
      log: captureLogger(),
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const before = sim.state.now() - 1;
    const inbox = simulatorInbox(sim.url, () => 'sim-api-key');
    assert.deepEqual(await inbox.messages(), []);
    await api.tfaSendEmail({});
    const m = newestCode(await inbox.messages(), 'email', before);
    assert.ok(m, 'the e-mail is in the inbox');
    assert.equal(m.code, sim.state.outbox[0]!.code);
    assert.equal(inboxHint(m), `Demo inbox: the e-mail to ${m.to} says ${m.code}`);
    assert.equal(newestCode(await inbox.messages(), 'sms', before), undefined);
    assert.equal(newestCode(await inbox.messages(), 'email', m.at + 1), undefined, 'an older code is not offered');
    assert.ok(!('secret' in (m as object)), 'the challenge secret is not exposed');
    await assert.rejects(simulatorInbox(sim.url, () => 'wrong-key').messages(), /HTTP 401/);
    await assert.rejects(simulatorInbox(plain.url, () => 'sim-api-key').messages(), /HTTP 404/);
  } finally {
    await sim.close();
    await plain.close();
    await closeApiTransport();
  }
});
