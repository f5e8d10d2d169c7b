// A refusal inside a 2xx: the service can answer `200 {"success": false, "msg": …}` to a
// state change it did not carry out. Reporting that as done would tell the user billing
// stopped (or a machine is gone) while it has not, so every state change must reject with the
// service's own message: once at the transport (no simulator), once against the simulator.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSim } from '../../../src/sim';
import { SimControl } from '../../../src/sim/control';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import type { Transport, TransportRequest } from '../../../src/api/transport';
import type { ServiceApi } from '../../../src/api/types';
import { API_KEY, keyCredentials, rejection } from './helpers';
import { captureLogger } from '../../kit/log';

type Op = [name: string, call: (api: ServiceApi, id: number) => Promise<unknown>];
const OPS: Op[] = [
  ['stop', (api, id) => api.setInstanceState(id, 'stopped')],
  ['start', (api, id) => api.setInstanceState(id, 'running')],
  ['label', (api, id) => api.setInstanceLabel(id, 'renamed')],
  ['destroy', (api, id) => api.destroyInstance(id)],
  ['reboot', (api, id) => api.rebootInstance(id)],
  ['recycle', (api, id) => api.recycleInstance(id)],
  ['change bid', (api, id) => api.changeBid(id, 0.5)],
];

test('transport: 200 {"success": false, "msg"} to every state change rejects with the service message, asked once', async () => {
  for (const [name, call] of OPS) {
    const msg = `Refused (${name}): the host did not answer; nothing was changed.`;
    const seen: TransportRequest[] = [];
    const transport: Transport = {
      request: async (req) => {
        seen.push(req);
        return { status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify({ success: false, msg }) };
      },
    };
    const log = captureLogger();
    const api = createApiClient({
      baseUrl: 'http://127.0.0.1:9',
      credentials: keyCredentials(),
      log,
      transport,
      pacing: 'off',
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const e = await rejection(call(api, 42));
    assert.equal(e.msg, msg, name);
    assert.ok(e.message.includes(msg), `${name}: ${e.message}`);
    assert.equal(e.status, 200, name);
    assert.equal(seen.length, 1, `${name}: a refusal is an answer, not a reason to ask again`);
  }
  // the same shape with `error` and `message` instead of `msg`
  const transport: Transport = {
    request: async () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: '{"success": false, "error": "host_busy", "message": "Busy."}',
    }),
  };
  const api = createApiClient({ baseUrl: 'http://127.0.0.1:9', credentials: keyCredentials(), log: captureLogger(), transport, pacing: 'off' });
  assert.equal((await rejection(api.destroyInstance(42))).code, 'host_busy');
});

let sim: RunningSim;
let ctl: SimControl;
let api: ServiceApi;

before(async () => {
  sim = await startSimulator({ port: 0, testControl: true, bootSeconds: 60, seed: 4, rateLimitPerSecond: 1000, ssh: false });
  ctl = new SimControl(sim.url);
  api = createApiClient({
    baseUrl: sim.url,
    credentials: keyCredentials(API_KEY),
    log: captureLogger(),
    timeoutMs: 5000,
    pacing: 'off',
    retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 },
  });
});
after(async () => {
  await sim.close();
  await closeApiTransport();
});
beforeEach(() => ctl.reset());

/** The simulator refuses the next request on `path` with a 200; returns the message it will send. */
async function refuseNext(path: string, name: string): Promise<string> {
  const msg = `Simulated refusal of ${name}: the machine's host is busy, try again.`;
  await ctl.fault({ kind: 'refused', msg, path, exact: true });
  return msg;
}

async function expectRefused(name: string, path: string, call: () => Promise<unknown>): Promise<void> {
  const msg = await refuseNext(path, name);
  const e = await rejection(call());
  assert.equal(e.msg, msg, name);
  assert.ok(e.message.includes(msg), `${name}: ${e.message}`);
}

test('simulator: a refused stop, start, label, destroy, reboot, recycle or bid change rejects and changes nothing', async () => {
  const [offer] = await api.searchOffers({ type: 'bid', limit: 1 });
  const { new_contract: id } = await api.createInstance(offer!.id, { image: 'pytorch/pytorch:latest', price: offer!.dph_total, label: 'kept' });
  await ctl.finishBoot(id);
  const I = `/api/v0/instances/${id}`;
  const show = () => api.showInstance(id);

  await expectRefused('stop', I, () => api.setInstanceState(id, 'stopped'));
  assert.equal((await show()).intended_status, 'running', 'a refused stop leaves it running (and billing)');
  await expectRefused('label', I, () => api.setInstanceLabel(id, 'renamed'));
  assert.equal((await show()).label, 'kept');
  await expectRefused('reboot', `/api/v0/instances/reboot/${id}`, () => api.rebootInstance(id));
  assert.equal((await show()).state, 'running');
  await expectRefused('recycle', `/api/v0/instances/recycle/${id}`, () => api.recycleInstance(id));
  assert.equal((await show()).state, 'running');
  const bid = (await show()).dph_total ?? 1;
  await expectRefused('change bid', `/api/v0/instances/bid_price/${id}`, () => api.changeBid(id, bid * 2));
  assert.equal((await show()).dph_total, bid);
  await expectRefused('destroy', I, () => api.destroyInstance(id));
  assert.equal((await show()).id, id, 'a refused destroy leaves the machine there');

  await api.setInstanceState(id, 'stopped');
  await expectRefused('start', I, () => api.setInstanceState(id, 'running'));
  assert.equal((await show()).intended_status, 'stopped');
  await api.destroyInstance(id);
});
