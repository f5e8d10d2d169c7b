// Logs, reboot, recycle, change of bid, server templates and CLI-language searches: the client
// against the real simulator over loopback.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningSim } from '../../../src/sim';
import { startSim } from '../../kit/sim';
import { SimControl } from '../../../src/sim/control';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import type { Transport, TransportRequest } from '../../../src/api/transport';
import type { ServiceApi } from '../../../src/api/types';
import { parseOfferQuery } from '../../../src/offers/offerQuery';
import { isOutbid } from '../../../src/core/instanceWords';
import { currentBid } from '../../../src/instances/bid';
import { API_KEY, keyCredentials, rejection } from './helpers';
import { captureLogger } from '../../kit/log';

let sim: RunningSim;
let ctl: SimControl;
const log = captureLogger();
let api: ServiceApi;

before(async () => {
  sim = await startSim({ testControl: true, bootSeconds: 60, seed: 1, instances: 2, rateLimitPerSecond: 1000, logDelayMs: 250 });
  ctl = (sim as Awaited<ReturnType<typeof startSim>>).ctl;
  api = createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log, timeoutMs: 5000, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
});
after(async () => {
  await sim.close();
  await closeApiTransport();
});
beforeEach(async () => {
  await ctl.reset();
  sim.state.logFetches.length = 0;
});

const firstId = async () => (await api.listInstances()).instances[0]!.id;

async function createOn(query: Parameters<ServiceApi['searchOffers']>[0], body: Parameters<ServiceApi['createInstance']>[1]) {
  const [offer] = await api.searchOffers(query);
  const r = await api.createInstance(offer!.id, body);
  await ctl.finishBoot(r.new_contract);
  return { offer: offer!, id: r.new_contract };
}

test('logs: request, then the text once the upload lands (404 meanwhile), fetched without the API key', async () => {
  const { id } = await createOn({ limit: 1 }, { image: 'pytorch/pytorch:latest', onstart: 'pip install -r requirements.txt\necho started' });
  const r = await api.requestLogs(id, { tail: 1000 });
  assert.match(r.result_url, /^http:\/\/127\.0\.0\.1:\d+\/static\/logs\/[0-9a-f]+\.log$/);
  const pauses: number[] = [];
  const text = await api.fetchLogs(r.result_url, {
    intervalMs: 50,
    sleep: (ms) =>
      new Promise<void>((res) =>
        setTimeout(() => {
          pauses.push(ms);
          res();
        }, ms),
      ),
  });
  assert.match(text, /Container \d+ starting from pytorch\/pytorch:latest/);
  assert.match(text, /\+ pip install -r requirements\.txt/);
  assert.match(text, /Instance ready/);
  const fetches = sim.state.logFetches;
  assert.ok(fetches.length >= 2 && fetches[0]!.status === 404, 'the first GET came before the upload landed');
  assert.equal(fetches[fetches.length - 1]!.status, 200);
  assert.ok(pauses.length >= 1 && pauses.every((p) => p === 50));
  assert.ok(
    fetches.every((f) => !f.authorization),
    'the result_url never gets the API key',
  );
  assert.ok(!log.text().includes(API_KEY));
});

test('logs: tail and filter are applied by the service; the daemon log has its secrets masked', async () => {
  const id = await firstId(); // seeded: this client never saw its instance key
  await ctl.advance(600);
  const fast = { intervalMs: 20, attempts: 100 };
  const all = await api.fetchLogs((await api.requestLogs(id)).result_url, fast);
  const tail = await api.fetchLogs((await api.requestLogs(id, { tail: 3 })).result_url, fast);
  assert.equal(tail.trimEnd().split('\n').length, 3);
  assert.ok(all.trimEnd().endsWith(tail.trimEnd()));
  const filtered = await api.fetchLogs((await api.requestLogs(id, { filter: 'monitor' })).result_url, fast);
  assert.ok(
    filtered
      .trim()
      .split('\n')
      .every((l) => l.includes('[monitor]')),
  );
  const daemon = await api.fetchLogs((await api.requestLogs(id, { daemonLogs: true })).result_url, fast);
  assert.match(daemon, /pulling image/);
  assert.match(daemon, /CONTAINER_API_KEY=\*\*\*/);
  const key = sim.state.instances.get(id)!.apiKey;
  assert.ok(!daemon.includes(key), 'the instance key never reaches the text');
  const body = sim.state.requests.filter((q) => q.path.includes('request_logs'));
  assert.equal(body.length, 4);
});

test('logs: an exited instance tells why; an unknown id is the service error', async () => {
  const { id } = await createOn({ limit: 1 }, { image: 'pytorch/pytorch:latest' });
  await ctl.fault({ kind: 'instance_state', id, state: 'exited' });
  const text = await api.fetchLogs((await api.requestLogs(id, { tail: 5 })).result_url, { intervalMs: 20, attempts: 100 });
  assert.match(text, /exited with code 137/);
  const e = await rejection(api.requestLogs(999_999));
  assert.equal(e.status, 404);
  assert.equal(e.code, 'invalid_id');
  assert.equal((await rejection(api.requestLogs(id, { tail: 0 }))).kind, 'invalid_request');
});

test('logs retry: bounded attempts with the injected pause, then a clear timeout', async () => {
  const seen: TransportRequest[] = [];
  const transport: Transport = {
    async request(req) {
      seen.push(req);
      return { status: 404, headers: { 'content-type': 'application/xml' }, text: '<Error><Code>NoSuchKey</Code></Error>' };
    },
  };
  const fake = createApiClient({ baseUrl: 'http://127.0.0.1:9', credentials: keyCredentials(), log, transport });
  const pauses: number[] = [];
  const e = await rejection(
    fake.fetchLogs('https://bucket.example/logs/abc.log?X-Sig=s3cr3tsig', { attempts: 30, intervalMs: 300, sleep: async (ms) => void pauses.push(ms) }),
  );
  assert.equal(seen.length, 30);
  assert.deepEqual(pauses, Array(29).fill(300));
  assert.equal(e.kind, 'timeout');
  assert.match(e.message, /not uploaded after 30 tries over about 9 s \(last answer: HTTP 404\)/);
  assert.ok(!e.message.includes('s3cr3tsig'), 'a signed query is not repeated in messages');
  for (const r of seen) {
    assert.equal(r.baseUrl, 'https://bucket.example');
    assert.equal(r.path, '/logs/abc.log?X-Sig=s3cr3tsig');
    assert.equal(
      Object.keys(r.headers).some((h) => h.toLowerCase() === 'authorization'),
      false,
    );
  }
  // a 200 on the third try ends the wait; other 4xx end it at once
  let n = 0;
  const later = createApiClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: keyCredentials(),
    log,
    transport: {
      request: async () =>
        ++n < 3 ? { status: 404, headers: {}, text: '' } : { status: 200, headers: {}, text: `HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz ok\nkey ${API_KEY}\n` },
    },
  });
  const ok = await later.fetchLogs('https://bucket.example/l.log', { sleep: async () => undefined });
  assert.equal(ok, 'HF_TOKEN=*** ok\nkey ***\n');
  assert.equal(n, 3);
  const gone = createApiClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: keyCredentials(),
    log,
    transport: { request: async () => ({ status: 410, headers: {}, text: '' }) },
  });
  assert.equal((await rejection(gone.fetchLogs('https://bucket.example/l.log', { sleep: async () => undefined }))).status, 410);
  assert.match((await rejection(fake.fetchLogs('file:///etc/passwd'))).message, /scheme file/);
  assert.match((await rejection(fake.fetchLogs('https://user:pw@bucket.example/x'))).message, /credentials in it/);
});

test('reboot: rebooting (transitional) then running again; recycle: a fresh pull from provisioning', async () => {
  const { id } = await createOn({ limit: 1 }, { image: 'pytorch/pytorch:latest' });
  await api.rebootInstance(id);
  assert.equal((await api.showInstance(id)).state, 'rebooting');
  await ctl.advance(20);
  assert.equal((await api.showInstance(id)).state, 'running');
  await api.recycleInstance(id);
  assert.equal((await api.showInstance(id)).state, 'provisioning');
  await ctl.advance(30);
  assert.equal((await api.showInstance(id)).state, 'loading');
  await ctl.advance(31);
  assert.equal((await api.showInstance(id)).state, 'running');
  await api.setInstanceState(id, 'stopped');
  const e = await rejection(api.rebootInstance(id));
  assert.equal(e.code, 'instance_stopped');
  const puts = sim.state.requests.filter((r) => /\/(reboot|recycle)\//.test(r.path)).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(puts, [`PUT /api/v0/instances/reboot/${id}/`, `PUT /api/v0/instances/recycle/${id}/`, `PUT /api/v0/instances/reboot/${id}/`]);
});

test('change bid: outbid shows as stopped while intended running; a bid under the minimum is refused; a higher bid runs again', async () => {
  const [offer] = await api.searchOffers({ type: 'bid', limit: 1 });
  const r = await api.createInstance(offer!.id, { image: 'pytorch/pytorch:latest', price: offer!.dph_total });
  await ctl.finishBoot(r.new_contract);
  const id = r.new_contract;
  const before = await api.showInstance(id);
  assert.equal(currentBid(before), offer!.dph_total);
  assert.equal(isOutbid(before), false);
  const minBid = await ctl.outbid(id);
  const outbid = await api.showInstance(id);
  assert.equal(isOutbid(outbid), true);
  assert.equal(outbid.intended_status, 'running');
  assert.equal(outbid.min_bid, minBid);
  const low = await rejection(api.changeBid(id, minBid / 2));
  assert.equal(low.code, 'bid_too_low');
  assert.equal((await rejection(api.changeBid(id, -1))).kind, 'invalid_request');
  await api.changeBid(id, minBid);
  const after = await api.showInstance(id);
  assert.equal(isOutbid(after), false);
  assert.equal(currentBid(after), minBid);
  // on-demand instances have no bid
  const { id: od } = await createOn({ limit: 1 }, { image: 'ubuntu' });
  assert.equal((await rejection(api.changeBid(od, 1))).code, 'not_interruptible');
});

test('server templates: the search filter language, order and columns', async () => {
  const recommended = await api.searchTemplates({ filters: { recommended: { eq: true } }, orderBy: 'name' });
  assert.deepEqual(
    recommended.map((t) => t.name),
    ['jupyter-lab', 'pytorch-cuda12', 'tensorflow-jupyter'],
  );
  const py = recommended.find((t) => t.name === 'pytorch-cuda12')!;
  assert.equal(py.image, 'pytorch/pytorch');
  assert.equal(py.tag, '2.5.1-cuda12.4-cudnn9-runtime');
  assert.match(py.env ?? '', /-p 8888:8888/);
  assert.equal(py.onstart, 'env >> /etc/environment');
  const all = await api.searchTemplates({ orderBy: '-count_created' });
  assert.equal(all[0]!.name, 'jupyter-lab');
  assert.ok(all.every((t) => !('docker_login_pass' in t)));
  const byHash = await api.searchTemplates({ filters: { hash_id: { eq: py.hash_id } }, cols: ['id', 'hash_id', 'name'] });
  assert.deepEqual(byHash, [{ id: py.id, hash_id: py.hash_id, name: py.name, image: '' }]);
  assert.equal((await rejection(api.searchTemplates({ filters: { name: { like: 'x' } } as never }))).status, 400);
});

test('searches in the CLI language and in the service form reach the service and its results honour them', async () => {
  const q = parseOfferQuery('num_gpus>=2 gpu_ram>=24 reliability>0.9 dph<5 -o dph');
  assert.ok(q.ok);
  const offers = await api.searchOffers(q.query);
  assert.ok(offers.length > 0);
  for (const o of offers) {
    assert.ok(o.num_gpus >= 2 && (o.gpu_ram ?? 0) >= 24_000 && (o.reliability ?? 0) > 0.9 && o.dph_total < 5 && o.verified === true);
  }
  assert.deepEqual(
    offers.map((o) => o.dph_total),
    [...offers.map((o) => o.dph_total)].sort((a, b) => a - b),
  );
  const geo = parseOfferQuery('geolocation in [SE,NO] verified=any');
  assert.ok(geo.ok);
  const nordic = await api.searchOffers(geo.query);
  assert.ok(nordic.length > 0 && nordic.every((o) => /, (SE|NO)$/.test(o.geolocation ?? '')));
  const svc = parseOfferQuery({ num_gpus: { gte: 4 }, gpu_name: { in: ['RTX 4090', 'H100 SXM'] }, order: [['dph_total', 'asc']] });
  assert.ok(svc.ok);
  const big = await api.searchOffers(svc.query);
  assert.ok(big.length > 0 && big.every((o) => o.num_gpus >= 4 && ['RTX 4090', 'H100 SXM'].includes(o.gpu_name)));
});

test('logs carry what the onstart script really printed when the simulator runs it', async () => {
  await ctl.runOnstart(true, {}, { nvidiaSmi: false });
  try {
    const { id } = await createOn({ limit: 1 }, { image: 'ubuntu', onstart: 'echo "hello from onstart $CONTAINER_ID"' });
    let text = '';
    const printed = new RegExp(`hello from onstart ${id}`);
    for (let i = 0; i < 50 && !printed.test(text); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await api.fetchLogs((await api.requestLogs(id)).result_url, { intervalMs: 20, attempts: 100 });
    }
    assert.match(text, printed);
    assert.match(text, /\+ echo "hello from onstart \$CONTAINER_ID"/, 'the script line, then its output');
  } finally {
    await ctl.runOnstart(false);
  }
});
