// The client against the real simulator over loopback: every endpoint, retries, no retry for
// creation, ambiguity + reconciliation, timeouts, auth fallback, malformed answers. (Requests
// refused before sending, the backoff's jitter and cancellation: clientChecks.test.ts; requests in
// flight when the 2FA session expires: pipeline.test.ts.)
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, rejection, keyCredentials, type Harness } from './helpers';
import { createApiClient } from '../../../src/api/client';
import { reconcileCreation } from '../../../src/api/reconcile';
import type { Transport, TransportRequest } from '../../../src/api/transport';
import type { Credentials } from '../../../src/api/types';

// Every test runs against both services: the live one (`today`: paged v1 list, no
// instance_api_key in the create answer) and the seed spec's (`seed`: the v0 list).
for (const era of ['today', 'seed'] as const)
  describe(`era ${era}`, () => {
    /** The list path of this era, as the request log and fault paths see it. */
    const LIST = era === 'today' ? '/api/v1/instances' : '/api/v0/instances';
    let h: Harness;
    useHarness({ instances: 2, era }, (x) => (h = x), { resetEach: true });

    const requestsTo = async (pathPart: string, method?: string) =>
      (await h.ctl.requests()).filter((r) => r.path.includes(pathPart) && (!method || r.method === method));

    test('instances: list, show, stop (stopped shape), start, label, destroy', async () => {
      const api = h.client();
      const list = await api.listInstances();
      assert.equal(list.instances_found, 2);
      assert.equal(list.instances.length, 2);
      const first = list.instances[0]!;
      assert.equal(first.state, 'running');
      assert.ok(first.ports?.some((p) => p.container === '22/tcp' && p.hostPort > 0));

      const shown = await api.showInstance(first.id);
      assert.equal(shown.id, first.id);

      assert.deepEqual(await api.setInstanceState(first.id, 'stopped'), { success: true });
      const stopped = await api.showInstance(first.id);
      assert.equal(stopped.actual_status, 'exited');
      assert.equal(stopped.intended_status, 'stopped');
      assert.equal(stopped.state, 'stopped');
      assert.equal(stopped.ports, null);

      await api.setInstanceState(first.id, 'running');
      assert.notEqual((await api.showInstance(first.id)).state, 'stopped');

      await api.setInstanceLabel(first.id, 'renamed-1');
      assert.equal((await api.showInstance(first.id)).label, 'renamed-1');

      await api.destroyInstance(first.id);
      const gone = await rejection(api.showInstance(first.id));
      assert.equal(gone.code, 'no_such_instance');
      assert.match(gone.userMessage(), /no longer exists/);
      assert.equal(
        (await api.listInstances()).instances.some((i) => i.id === first.id),
        false,
      );

      // Trailing slashes as in the spec.
      const paths = (await h.ctl.requests()).map((r) => `${r.method} ${r.path}`);
      assert.ok(paths.includes(`GET ${LIST}/`));
      assert.ok(paths.includes(`PUT /api/v0/instances/${first.id}/`));
      assert.ok(paths.includes(`DELETE /api/v0/instances/${first.id}/`));
    });

    test('search: filters reach the service (GB -> MB, names, counts, price) and results honour them', async () => {
      const api = h.client();
      const all = await api.searchOffers({});
      assert.ok(all.length > 0 && all.length <= 64);
      const scores = all.map((o) => o.score ?? 0);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
        'default order is score descending',
      );
      const name = all[0]!.gpu_name;
      const offers = await api.searchOffers({ gpuNames: [name], minNumGpus: 2, minGpuRamGb: 10, maxDphTotal: 50, limit: 5 });
      assert.ok(offers.length <= 5);
      for (const o of offers) {
        assert.equal(o.gpu_name, name);
        assert.ok(o.num_gpus >= 2);
        assert.ok((o.gpu_ram ?? 0) >= 10_000);
        assert.ok(o.dph_total <= 50);
      }
      const bad = await rejection(api.searchOffers({ minReliability: 98 }));
      assert.equal(bad.kind, 'invalid_request');
    });

    test('create: on-demand creation, provisioning -> running on the sim clock with Docker ports', async () => {
      const api = h.client();
      const [offer] = await api.searchOffers({ minDirectPorts: 1, limit: 1 });
      const r = await api.createInstance(offer!.id, { image: 'pytorch/pytorch:latest', label: 'job-abc', disk: 16, runtype: 'ssh_direct' });
      assert.equal(r.success, true);
      assert.ok(r.new_contract > 0);
      assert.ok(r.instance_api_key);
      assert.equal((await api.showInstance(r.new_contract)).state, 'provisioning');
      await h.ctl.advance(61);
      const running = await api.showInstance(r.new_contract);
      assert.equal(running.state, 'running');
      assert.ok(running.ports?.some((p) => p.container === '22/tcp'));
      // The instance key may stop its own instance only.
      const instanceKey = r.instance_api_key ?? h.sim.state.instances.get(r.new_contract)!.apiKey;
      const scoped = h.client({ credentials: keyCredentials(instanceKey) });
      await scoped.setInstanceState(r.new_contract, 'stopped');
      assert.equal((await api.showInstance(r.new_contract)).state, 'stopped');
    });

    test('create: invalid requests are refused before sending, with every problem listed', async () => {
      const api = h.client();
      const before = (await requestsTo('/asks/')).length;
      const e = await rejection(api.createInstance(5, { disk: 0, price: 0.2, args_str: 'x' }, { interruptible: false }));
      assert.equal(e.kind, 'invalid_request');
      assert.equal(e.problems?.length, 4);
      assert.match(e.userMessage(), /not sent.*image.*Correct these values/);
      const bid = await rejection(api.createInstance(5, { image: 'x' }, { interruptible: true }));
      assert.match(bid.problems!.join(), /price: required/);
      assert.equal((await requestsTo('/asks/')).length, before);
    });

    test('current user and 2FA status', async () => {
      const api = h.client();
      const u = await api.currentUser();
      assert.ok(u.id > 0);
      assert.match(u.email ?? '', /@/);
      assert.ok(['enabled', 'disabled', 'legacy'].includes(u.tfa_status ?? ''));
      const s = await api.tfaStatus();
      assert.equal(typeof s.tfa_enabled, 'boolean');
      assert.ok(Array.isArray(s.methods));
    });

    test('unknown, null and failure actual_status values never crash', async () => {
      const api = h.client();
      const [a, b] = (await api.listInstances()).instances;
      await h.ctl.fault({ kind: 'instance_state', id: a!.id, state: 'melting' });
      await h.ctl.fault({ kind: 'instance_state', id: b!.id, state: 'exited' });
      const byId = new Map((await api.listInstances()).instances.map((i) => [i.id, i]));
      assert.equal(byId.get(a!.id)!.state, 'unknown');
      assert.equal(byId.get(a!.id)!.actual_status, 'melting');
      assert.equal(byId.get(b!.id)!.state, 'exited');
    });

    test('GET retries with backoff on 503, 429 and connection resets, then succeeds', async () => {
      const api = h.client();
      await h.ctl.fault({ kind: 'http_error', status: 503, path: LIST, count: 2 });
      await h.ctl.fault({ kind: 'http_error', status: 429, path: LIST, count: 1 });
      await h.ctl.fault({ kind: 'reset', path: LIST, count: 1 });
      const list = await api.listInstances();
      assert.equal(list.instances.length, 2);
      // The simulator applies the reset to the first 503 as well: 503+reset, 503, 429, 200.
      assert.equal((await requestsTo(`${LIST}/`, 'GET')).length, 4);
      const log = h.log.text();
      assert.match(log, new RegExp(`GET ${LIST}/\\S*: network, retry 1/4`));
      assert.match(log, /http 503, retry 2\/4/);
      assert.match(log, /rate_limited 429, retry 3\/4/);
    });

    test('GET gives up after the configured retries with the last error', async () => {
      const api = h.client({ retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 } });
      await h.ctl.fault({ kind: 'http_error', status: 502, path: '/api/v0/users/current', count: 10 });
      const e = await rejection(api.currentUser());
      assert.equal(e.status, 502);
      assert.equal((await requestsTo('/users/current')).length, 3);
    });

    test('creation is never retried: 503, 429 and 500 with an error body each mean one request', async () => {
      const api = h.client();
      const [offer] = await api.searchOffers({ limit: 1 });
      for (const [status, kind] of [
        [503, 'http'],
        [429, 'rate_limited'],
        [500, 'http'],
      ] as const) {
        await h.ctl.fault({ kind: 'http_error', status, path: '/asks/', ...(status === 429 ? {} : { error: 'sim_down' }) });
        const e = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04' }));
        assert.equal(e.kind, kind, `HTTP ${status}`);
      }
      assert.equal((await requestsTo('/asks/')).length, 3);
      assert.equal((await api.listInstances()).instances.length, 2);
    });

    test('ambiguous creation (slow answer + short timeout), then reconcileCreation finds exactly one instance', async () => {
      // margins wide enough for a loaded machine (the mutation run): the request must reach the
      // service well inside the timeout, and the answer come well after it
      const api = h.client({ timeoutMs: 400 });
      const [offer] = await h.client().searchOffers({ limit: 1 });
      await h.ctl.fault({ kind: 'slow', ms: 1500, path: '/asks/' });
      const label = 'gpu-rental-7f3a9c';
      const e = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04', label }));
      assert.equal(e.kind, 'ambiguous');
      assert.match(e.message, /outcome is unknown/);
      assert.match(e.userMessage(), /check your instance list/);
      assert.equal((await requestsTo('/asks/')).length <= 1, true);
      const found = await reconcileCreation(api, label);
      assert.ok(found, 'the instance created despite the timeout is found');
      assert.equal(found.label, label);
      assert.equal((await api.listInstances()).instances.filter((i) => i.label === label).length, 1);
      assert.equal(await reconcileCreation(api, 'gpu-rental-never-made'), undefined);
    });

    test('ambiguous creation on a connection reset after sending', async () => {
      const api = h.client();
      const [offer] = await api.searchOffers({ limit: 1 });
      await h.ctl.fault({ kind: 'reset', path: '/asks/' });
      const e = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04', label: 'reset-1' }));
      assert.equal(e.kind, 'ambiguous');
      assert.equal((await requestsTo('/asks/')).length, 1);
      assert.ok(await reconcileCreation(api, 'reset-1'));
    });

    test('ambiguous creation on a 5xx without an explanatory body (injected transport)', async () => {
      const transport: Transport = { request: async () => ({ status: 502, headers: { 'content-type': 'text/html' }, text: '<h1>Bad Gateway</h1>' }) };
      const api = createApiClient({ baseUrl: 'http://127.0.0.1:9', credentials: keyCredentials(), log: h.log, transport });
      const e = await rejection(api.createInstance(1, { image: 'x' }));
      assert.equal(e.kind, 'ambiguous');
      assert.equal(e.status, 502);
    });

    test('connection refused before sending is a network error, not ambiguous', async () => {
      const { createServer } = await import('node:net');
      const srv = createServer();
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as { port: number }).port;
      await new Promise<void>((r) => srv.close(() => r()));
      const api = createApiClient({
        baseUrl: `http://127.0.0.1:${port}`,
        credentials: keyCredentials(),
        log: h.log,
        retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
      });
      const e = await rejection(api.createInstance(1, { image: 'x' }));
      assert.equal(e.kind, 'network');
      assert.match(e.userMessage(), /Could not reach the service/);
    });

    test('timeouts: a slow GET fails with kind timeout (not retried)', async () => {
      const api = h.client({ timeoutMs: 100 });
      await h.ctl.fault({ kind: 'slow', ms: 400, path: '/users/current' });
      const t0 = Date.now();
      const e = await rejection(api.currentUser());
      assert.equal(e.kind, 'timeout');
      assert.ok(Date.now() - t0 < 350);
    });

    test('no token: kind auth, nothing sent', async () => {
      const before = (await h.ctl.requests()).length;
      const e = await rejection(h.client({ credentials: { token: () => undefined } }).listInstances());
      assert.equal(e.kind, 'auth');
      assert.match(e.userMessage(), /not signed in/);
      assert.equal((await h.ctl.requests()).length, before);
    });

    test('401 with an expired session key falls back to the API key once', async () => {
      let token = 'expired-session-key';
      let calls = 0;
      const creds: Credentials = {
        token: () => token,
        onAuthFailure: () => {
          calls++;
          token = 'sim-api-key';
          return true;
        },
      };
      const list = await h.client({ credentials: creds }).listInstances();
      assert.equal(list.instances.length, 2);
      assert.equal(calls, 1);
    });

    test('auth fallback never loops: one resend, then the auth error', async () => {
      let calls = 0;
      const creds: Credentials = { token: () => 'always-wrong', onAuthFailure: () => (calls++, true) };
      const e = await rejection(h.client({ credentials: creds }).listInstances());
      assert.equal(e.kind, 'auth');
      assert.equal(calls, 1);
      assert.equal((await requestsTo(`${LIST}/`)).length, 2);
      let declined = 0;
      const e2 = await rejection(h.client({ credentials: { token: () => 'nope', onAuthFailure: () => (declined++, false) } }).tfaStatus());
      assert.equal(e2.kind, 'auth');
      assert.equal(declined, 1);
    });

    test('a read-only key cannot create: 403 with a permission message', async () => {
      const api = h.client({ credentials: keyCredentials('sim-read-only-key') });
      const [offer] = await api.searchOffers({ limit: 1 });
      const e = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04' }));
      assert.equal(e.status, 403);
      assert.match(e.userMessage(), /permission/);
    });

    test('malformed answers: broken JSON and wrong content type name the endpoint; charset is fine', async () => {
      const api = h.client({ retry: { retries: 0 } });
      await h.ctl.fault({ kind: 'malformed', path: LIST });
      const e = await rejection(api.listInstances());
      assert.equal(e.kind, 'malformed');
      assert.match(e.message, new RegExp(`GET ${LIST}/`));
      assert.match(e.userMessage(), /does not understand/);

      const seen: TransportRequest[] = [];
      const answer = (contentType: string, text: string): Transport => ({
        request: async (req) => (seen.push(req), { status: 200, headers: { 'content-type': contentType }, text }),
      });
      const mk = (t: Transport) => createApiClient({ baseUrl: 'http://127.0.0.1:9/', credentials: keyCredentials(), log: h.log, transport: t });
      const u = await mk(answer('application/json; charset=utf-8', '{"id": 3, "email": "a@b.c"}')).currentUser();
      assert.equal(u.id, 3);
      assert.equal(seen[0]!.path, '/api/v0/users/current/');
      assert.equal(seen[0]!.headers.authorization, 'Bearer sim-api-key');
      const html = await rejection(mk(answer('text/html', '<html></html>')).currentUser());
      assert.equal(html.kind, 'malformed');
      const shape = await rejection(mk(answer('application/json', '{"offers": [{"id": 1}]}')).searchOffers({}));
      assert.equal(shape.kind, 'malformed');
      assert.match(shape.message, /POST \/api\/v0\/bundles\//);
    });

    test('cancelling a creation after it was sent is ambiguous, not a plain cancel (it may have been rented)', async () => {
      const api = h.client();
      const [offer] = await api.searchOffers({ limit: 1 });
      await h.ctl.fault({ kind: 'slow', ms: 2000, path: '/asks/' });
      const ctl = new AbortController();
      // cancelled once the service has rented (and before it answers), however loaded the machine is
      const rented = () => [...h.sim.state.instances.values()].some((i) => i.label === 'cancel-1');
      const watch = setInterval(() => rented() && ctl.abort(), 5);
      try {
        const e = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04', label: 'cancel-1' }, { signal: ctl.signal }));
        assert.equal(e.kind, 'ambiguous');
        assert.equal(e.causeKind, 'aborted');
      } finally {
        clearInterval(watch);
      }
      assert.ok(await reconcileCreation(api, 'cancel-1'));
      // Cancelled before sending: nothing can have been rented.
      const early = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04' }, { signal: AbortSignal.abort() }));
      assert.equal(early.kind, 'aborted');
    });

    test('an answer larger than the cap is refused with a clear "too large" error, announced or streamed', async () => {
      const api = h.client({ retry: { retries: 0 } });
      for (const declare of [true, false]) {
        await h.ctl.fault({ kind: 'huge', bytes: 9 * 1024 * 1024, declare, path: LIST });
        const before = process.memoryUsage().rss;
        const e = await rejection(api.listInstances());
        assert.equal(e.kind, 'too_large', `${declare ? 'Content-Length' : 'chunked'}: ${e.kind} ${e.message}`);
        assert.match(e.message, /too large/);
        assert.match(e.userMessage(), new RegExp(`too large to read \\(over 8 MB\\).*GET ${LIST}/`));
        assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'the body was not held whole');
      }
      // A creation whose answer is too large to read is ambiguous (it may have rented): reconciled, not failed.
      const [offer] = await api.searchOffers({ limit: 1 });
      await h.ctl.fault({ kind: 'huge', bytes: 9 * 1024 * 1024, path: '/api/v0/asks/' });
      const c = await rejection(api.createInstance(offer!.id, { image: 'ubuntu:22.04', label: 'huge-answer-1' }));
      assert.equal(c.kind, 'ambiguous');
      assert.ok(await reconcileCreation(api, 'huge-answer-1'));
      // and the connection pool still works afterwards
      assert.ok((await api.listInstances()).instances.length >= 1);
    });
  });
