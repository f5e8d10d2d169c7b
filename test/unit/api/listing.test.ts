// The client's instance list against the simulator in both eras: the v1 walk (pages of 25 by id,
// ceil(N/25) requests, consistent while instances come and go), the v0 fallback only on a plain
// 404, 410 deprecated_endpoint switching without a failure, the error shapes of the live
// service, "not visible yet", reconciliation by label with one filtered request, pacing.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyCredentials, rejection, startHarness, type Harness } from './helpers';
import { captureLogger } from '../../kit/log';
import { closeApiTransport, createApiClient, forgetListEras, learntListEra } from '../../../src/api/client';
import { reconcileCreation } from '../../../src/api/reconcile';
import { request as realRequest } from '../../../src/api/transport';
import type { Transport, TransportRequest } from '../../../src/api/transport';

after(async () => {
  await closeApiTransport();
});

const listRequests = async (h: Harness) => (await h.ctl.requests()).filter((r) => /^\/api\/v[01]\/instances\/$/.test(r.path));

for (const era of ['today', 'seed'] as const)
  describe(`list, era ${era}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ era });
      await h.ctl.seed({ offers: 1400 });
    });
    after(async () => {
      await h.close();
    });
    beforeEach(async () => {
      await h.ctl.reset();
      await h.ctl.seed({ offers: 1400 });
    });

    for (const n of [0, 1, 25, 26, 200, 1000]) {
      test(`${n} instances: every one once, in id order, in ${era === 'today' ? `ceil(${n}/25)` : 'one'} request(s)`, async () => {
        const seeded = await h.ctl.seed({ instances: n });
        assert.equal(seeded.instances, n);
        const api = h.client();
        await api.listInstances(); // learns the era of this base URL
        const before = (await listRequests(h)).length;
        const list = await api.listInstances();
        const ids = list.instances.map((i) => i.id);
        assert.equal(ids.length, n);
        assert.equal(new Set(ids).size, n);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
        const expected = era === 'today' ? Math.max(1, Math.ceil(n / 25)) : 1;
        assert.equal(list.requests, expected);
        assert.equal((await listRequests(h)).length - before, expected, 'requests on the wire');
        assert.equal(list.source, era === 'today' ? 'v1' : 'v0');
      });
    }

    test('reconciliation by label: one filtered request finds the newest instance with the label', async () => {
      await h.ctl.seed({ instances: 30 });
      const api = h.client();
      const offers = await api.searchOffers({ limit: 2 });
      const a = await api.createInstance(offers[0]!.id, { image: 'ubuntu:22.04', label: 'reconcile-me' });
      const b = await api.createInstance(offers[1]!.id, { image: 'ubuntu:22.04', label: 'reconcile-me' });
      await api.listInstances(); // era learnt
      const before = (await listRequests(h)).length;
      const found = await reconcileCreation(api, 'reconcile-me');
      assert.equal(found?.id, Math.max(a.new_contract, b.new_contract));
      assert.equal(await reconcileCreation(api, 'no-such-label'), undefined);
      assert.equal((await listRequests(h)).length - before, 2, 'one request per lookup, not a walk');
      const byId = await api.findInstances({ id: a.new_contract });
      assert.deepEqual(
        byId.map((i) => i.id),
        [a.new_contract],
      );
      if (era === 'today') {
        const sent = (await h.ctl.requests()).filter((r) => r.path === '/api/v1/instances/').length;
        assert.ok(sent >= 3);
      }
    });
  });

describe('the v1 walk while instances come and go', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ era: 'today' });
  });
  after(async () => {
    await h.close();
  });

  test('an instance created and one destroyed in the middle of a walk: no row lost, none twice', async () => {
    await h.ctl.seed({ offers: 400, instances: 60 });
    const ids = [...h.sim.state.instances.keys()].sort((a, b) => a - b);
    const victim = ids[40]!; // on page 2, not read yet when page 1 arrives
    const early = ids[3]!; // already read on page 1
    let created = 0;
    let pages = 0;
    const t: Transport = {
      request: async (req: TransportRequest) => {
        if (req.path.startsWith('/api/v1/instances/') && ++pages === 2) {
          const api = h.client();
          await api.destroyInstance(victim);
          await api.destroyInstance(early);
          const [offer] = await api.searchOffers({ limit: 1 });
          created = (await api.createInstance(offer!.id, { image: 'ubuntu:22.04', label: 'mid-walk' })).new_contract;
        }
        return realRequest(req);
      },
    };
    const list = await h.client({ transport: t }).listInstances();
    const got = list.instances.map((i) => i.id);
    assert.equal(new Set(got).size, got.length, 'no row twice');
    assert.ok(got.includes(created), 'the new instance (it sorts last) is on a later page');
    assert.ok(!got.includes(victim), 'the destroyed one is not shown from a page read after it went');
    assert.ok(got.includes(early), 'a row read before it went stays until the next walk confirms (the store decides)');
    assert.equal(list.requests, 3);
    const next = await h.client().listInstances();
    assert.ok(!next.instances.some((i) => i.id === early), 'the next walk confirms it is gone');
  });
});

describe('fallback, deprecation and the error shapes of the live service', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ era: 'seed', instances: 2 });
  });
  after(async () => {
    await h.close();
  });
  beforeEach(async () => {
    await h.ctl.reset();
    await h.ctl.setEra('seed');
  });

  test('a plain 404 on v1 means "no v1 here": the v0 list, remembered per base URL; a 410 on v0 switches back, never failing', async () => {
    forgetListEras(); // a new session: nothing learnt about this server yet
    const base = h.sim.url;
    const api = h.client();
    const first = await api.listInstances();
    assert.equal(first.source, 'v0');
    assert.equal(learntListEra(base), 'v0');
    const r1 = (await h.ctl.requests()).map((r) => r.path);
    assert.deepEqual(r1, ['/api/v1/instances/', '/api/v0/instances/']);
    await api.listInstances();
    assert.equal((await h.ctl.requests()).filter((r) => r.path === '/api/v1/instances/').length, 1, 'v1 is not asked again');
    // The account is moved to the live service: v0 answers 410 deprecated_endpoint.
    await h.ctl.setEra('today');
    const moved = await api.listInstances();
    assert.equal(moved.source, 'v1');
    assert.equal(moved.instances.length, 2);
    assert.equal(learntListEra(base), 'v1');
    assert.ok(!h.log.text().includes('failed: http 410'), 'a 410 deprecated_endpoint is not reported as a failure');
  });

  test('a 404 with a JSON error body on v1 is a real answer, not a reason to fall back', async () => {
    await h.ctl.setEra('today');
    forgetListEras();
    const base = h.sim.url;
    const api = h.client({ retry: { retries: 0 } });
    await h.ctl.fault({ kind: 'http_error', status: 404, error: 'not_found', msg: 'no such list', path: '/api/v1/instances' });
    const e = await rejection(api.listInstances());
    assert.equal(e.status, 404);
    assert.equal((await h.ctl.requests()).filter((r) => r.path === '/api/v0/instances/').length, 0);
    assert.notEqual(learntListEra(base), 'v0');
  });

  test('auth_error in the body is "signed out" whatever the status: 401, 403, 404', async () => {
    await h.ctl.setEra('today');
    const api = h.client({ retry: { retries: 0 } });
    for (const status of [401, 403, 404]) {
      await h.ctl.fault({ kind: 'http_error', status, error: 'auth_error', path: '/api/v0/users/current' });
      const e = await rejection(api.currentUser());
      assert.equal(e.kind, 'auth', `HTTP ${status}`);
      assert.match(e.userMessage(), /Sign in again/);
    }
    const bad = await rejection(h.client({ credentials: keyCredentials('revoked'), retry: { retries: 0 } }).showInstance(1));
    assert.deepEqual([bad.kind, bad.status], ['auth', 404]);
  });

  test('{"instances": null} is gone; within a minute of the creation it is "not visible yet"', async () => {
    await h.ctl.setEra('today');
    await h.ctl.setEra('today', { invisibleSeconds: 3 });
    const api = h.client();
    const [offer] = await api.searchOffers({ limit: 1 });
    const { new_contract: id } = await api.createInstance(offer!.id, { image: 'ubuntu:22.04' });
    const early = await rejection(api.showInstance(id));
    assert.equal(early.kind, 'not_visible_yet');
    assert.match(early.userMessage(), /not visible .* yet/);
    // Another client (another window) knows the creation time only when told.
    const other = h.client();
    assert.equal((await rejection(other.showInstance(id, { createdAtMs: Date.now() - 5000 }))).kind, 'not_visible_yet');
    assert.equal((await rejection(other.showInstance(id))).code, 'no_such_instance');
    await h.ctl.advance(3);
    assert.equal((await api.showInstance(id)).id, id);
    await api.destroyInstance(id);
    const gone = await rejection(other.showInstance(id, { createdAtMs: Date.now() - 120_000 }));
    assert.deepEqual([gone.kind, gone.code], ['http', 'no_such_instance']);
  });

  test('bodies with only msg or message are read; a plain-text 429 is a rate limit; the destroy 429 shape too', async () => {
    const answers: Array<[number, string, string]> = [
      [400, 'application/json', '{"msg": "label too long"}'],
      [400, 'application/json', '{"message": "bad things"}'],
      [429, 'text/plain', 'API requests too frequent endpoint threshold=1.0'],
      [429, 'application/json', '{"success": false, "error": "rate_limit_exceeded", "msg": "slow down"}'],
    ];
    let i = 0;
    const t: Transport = { request: async () => ({ status: answers[i]![0], headers: { 'content-type': answers[i]![1] }, text: answers[i++]![2] }) };
    const api = createApiClient({
      baseUrl: 'http://127.0.0.1:9/',
      credentials: keyCredentials(),
      log: captureLogger(),
      transport: t,
      retry: { retries: 0 },
      pacing: 'off',
    });
    const a = await rejection(api.setInstanceLabel(1, 'x'));
    assert.equal(a.msg, 'label too long');
    assert.match(a.userMessage(), /label too long/);
    const b = await rejection(api.setInstanceLabel(1, 'x'));
    assert.equal(b.msg, 'bad things');
    const c = await rejection(api.currentUser());
    assert.equal(c.kind, 'rate_limited');
    assert.match(c.msg ?? '', /threshold=1\.0/);
    const d = await rejection(api.destroyInstance(1));
    assert.equal(d.kind, 'rate_limited');
  });

  test('a create answer without instance_api_key is accepted; the user record reads balance and fullname', async () => {
    const bodies = ['{"success": true, "new_contract": 4242}', '{"id": 7, "balance": 12.5, "fullname": "Ada L"}'];
    let i = 0;
    const t: Transport = { request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, text: bodies[i++]! }) };
    const api = createApiClient({ baseUrl: 'http://127.0.0.1:9/', credentials: keyCredentials(), log: captureLogger(), transport: t, pacing: 'off' });
    const r = await api.createInstance(5, { image: 'ubuntu:22.04' });
    assert.deepEqual(r, { success: true, new_contract: 4242 });
    const u = await api.currentUser();
    assert.equal(u.credit, 12.5);
    assert.equal(u.full_name, 'Ada L');
  });

  test('twilio_error and twilio_rate_limited read like the seed SMS-provider codes', async () => {
    await h.ctl.setEra('today');
    const api = h.client({ retry: { retries: 0 } });
    await h.ctl.fault({ kind: 'tfa_error', error: 'sms_provider_error' });
    const a = await rejection(api.tfaSendSms({ phone_number: '+14155550123' }));
    assert.equal(a.code, 'sms_provider_error');
    assert.match(a.userMessage(), /SMS could not be delivered/);
    await h.ctl.fault({ kind: 'tfa_error', error: 'sms_provider_rate_limited' });
    const b = await rejection(api.tfaSendSms({ phone_number: '+14155550123' }));
    assert.equal(b.code, 'sms_provider_rate_limited');
  });
});

describe('pacing by the service thresholds', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ era: 'today', rateLimits: { list: 0.2, show: 0.3 } });
  });
  after(async () => {
    await h.close();
  });

  test('the pages of one walk and back-to-back reads keep the per-endpoint interval: no 429', async () => {
    await h.ctl.seed({ offers: 200, instances: 60 });
    const api = h.client({ pacing: { list: 200, show: 300 } });
    const t0 = Date.now();
    const list = await api.listInstances();
    assert.equal(list.instances.length, 60);
    assert.ok(Date.now() - t0 >= 2 * 200, 'three pages, two intervals');
    await api.showInstance(list.instances[0]!.id);
    await api.showInstance(list.instances[1]!.id);
    const statuses = (await h.ctl.requests()).map((r) => r.status);
    assert.ok(!statuses.includes(429), `no 429: ${statuses.join(',')}`);
  });

  test('a first page delayed on its way still leaves a whole interval before the second reaches the server', async () => {
    await h.ctl.reset();
    await h.ctl.seed({ offers: 200, instances: 60 });
    let first = true;
    // The real transport, with the first request held 300 ms before it leaves (a lost packet,
    // a slow proxy): it reaches the server late, right before its answer.
    const late: Transport = {
      request: async (req) => {
        if (first) {
          first = false;
          await sleep(300);
        }
        return realRequest(req);
      },
    };
    const api = h.client({ pacing: { list: 200 }, transport: late, retry: { retries: 0 } });
    const list = await api.listInstances();
    assert.equal(list.instances.length, 60);
    const statuses = (await h.ctl.requests()).map((r) => r.status);
    assert.ok(!statuses.includes(429), `no 429: ${statuses.join(',')}`);
  });

  test('without pacing the simulator answers 429 and the client retries after a whole interval', async () => {
    await h.ctl.reset();
    await h.ctl.seed({ offers: 200, instances: 60 });
    const api = h.client({ pacing: { list: 200 } });
    const raw = h.client({ pacing: 'off', retry: { retries: 4, baseDelayMs: 1, maxDelayMs: 2 } });
    await raw.listInstances().catch(() => undefined); // burns the interval: the paced client must wait it out
    const list = await api.listInstances();
    assert.equal(list.instances.length, 60);
  });
});
