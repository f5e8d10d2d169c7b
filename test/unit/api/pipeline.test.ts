// The pipeline (src/api/pipeline.ts) as a caller of the client meets it, through a scripted
// transport: which pacing a client gets ('off', the service's, its own), what a 429 holds back,
// a cancel while waiting for a turn. Waits run on Node's fake timers: a wait ends only when the
// test moves the clock, so nothing here depends on how fast the machine is. The built-in transport
// is tested over a local server, and its lazy load through the built dist/client.js.
import { test, mock, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { atOnce, flush, track } from '../../kit/clock';
import { inTempDir } from '../../kit/temp';
import { repoRoot } from '../repoRoot';
import { json, keyCredentials, rejection, scripted, useHarness, type Harness } from './helpers';
import { captureLogger, type CapturingLogger } from '../../kit/log';
import { closeApiTransport, createApiClient, forgetListEras, type ApiClientOptions } from '../../../src/api/client';
import type { ServiceApi } from '../../../src/api/types';
import { ApiError } from '../../../src/api/errors';
import { sleep } from '../../../src/api/pipeline';
import { ConnectionState } from '../../../src/core/connection';
import type { Transport } from '../../../src/api/transport';
import { SERVICE_PACING_MS, SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';

/** The margin the pacer keeps above each threshold (pacing.ts). */
const MARGIN = 50;

/** The fake monotonic clock (performance.now) of this file: moved by tick() only. */
let mono = 0;

/**
 * setTimeout, Date and performance.now become fake clocks until the test ends: a wait ends only
 * when tick() moves them. Date can also be set on its own (the computer's clock changed).
 */
function fakeTimers(): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.UTC(2026, 0, 1) });
  mono = 1_000;
  mock.method(performance, 'now', () => mono);
}
function tick(ms: number): void {
  mono += ms;
  mock.timers.tick(ms);
}
afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
});

const warnings = (log: CapturingLogger) => log.lines.filter((l) => l.startsWith('warn'));

/** A client answering every instance list page with no rows, with `pacing` (a key of ApiClientOptions left out when undefined). */
function lister(pacing: ApiClientOptions['pacing'] | 'default') {
  return scripted(() => json(200, { instances: [] }), pacing === 'default' ? { pacing: undefined } : { pacing });
}

test('closing the built-in transport before any request used it does nothing (deactivating an extension that sent nothing)', async () => {
  await closeApiTransport();
});

test('pacing: by default and with "service" the list waits its threshold between two walks; "off" never waits', async () => {
  fakeTimers();
  for (const pacing of ['default', 'service'] as const) {
    const { api, seen } = lister(pacing);
    await atOnce(api.listInstances(), 'the first walk');
    const second = track(api.listInstances());
    await flush();
    assert.equal(seen.length, 1, `${pacing}: the second walk waits for its turn`);
    tick(SERVICE_PACING_MS.list + MARGIN - 1);
    await flush();
    assert.equal(seen.length, 1, `${pacing}: one millisecond short of its turn`);
    tick(1);
    await flush();
    assert.ok(second.settled(), `${pacing}: sent once the interval has passed`);
    assert.equal(seen.length, 2);
  }
  const off = lister('off');
  for (let i = 0; i < 3; i++) await atOnce(off.api.listInstances(), `"off": walk ${i + 1}`);
  assert.equal(off.seen.length, 3, '"off": three walks in a row, the clock never moved');
});

test("pacing: a client's own interval for one endpoint, the service's for the others", async () => {
  fakeTimers();
  const { api, seen } = scripted(() => json(200, { instances: [] }), { pacing: { list: 5000 } });
  await atOnce(api.listInstances());
  const second = track(api.listInstances());
  await flush();
  tick(SERVICE_PACING_MS.list + MARGIN + 100);
  await flush();
  assert.equal(seen.length, 1, "the service's interval is not the one asked for");
  tick(5000 + MARGIN - (SERVICE_PACING_MS.list + MARGIN + 100));
  await flush();
  assert.ok(second.settled());
  // show keeps the service's interval
  const shows = scripted(() => json(200, { instances: { id: 5, actual_status: 'running' } }), { pacing: { list: 5000 } });
  await atOnce(shows.api.showInstance(5));
  const next = track(shows.api.showInstance(5));
  await flush();
  assert.equal(shows.seen.length, 1, 'show is still paced');
  tick(SERVICE_PACING_MS.show + MARGIN);
  await flush();
  assert.ok(next.settled());
});

test("pacing follows a monotonic clock: the computer's clock set back an hour does not hold the list back an hour", async () => {
  fakeTimers();
  const { api, seen } = lister('service');
  await atOnce(api.listInstances());
  mock.timers.setTime(Date.now() - 3_600_000);
  const second = track(api.listInstances());
  await flush();
  tick(SERVICE_PACING_MS.list + MARGIN);
  await flush();
  assert.ok(second.settled(), 'waited the interval, not the hour the clock went back');
  assert.equal(seen.length, 2);
});

/** A scripted client answering its requests with these statuses in turn (then 200), with `over`. */
function answering(statuses: number[], over: Partial<ApiClientOptions>) {
  const left = [...statuses];
  return scripted(() => {
    const status = left.shift() ?? 200;
    return json(status, status === 200 ? { success: true } : { error: 'e', msg: `HTTP ${status}` });
  }, over);
}

test('after a 429 the endpoint waits its whole threshold; another error holds nothing back; with pacing "off" nothing waits', async () => {
  fakeTimers();
  const { api, seen } = answering([429, 200, 500, 200], { pacing: 'service' });
  assert.equal((await rejection(atOnce(api.setInstanceLabel(5, 'a')))).kind, 'rate_limited');
  const held = track(api.setInstanceLabel(5, 'b'));
  await flush();
  assert.equal(seen.length, 1, 'the call after a 429 waits');
  tick(SERVICE_THRESHOLDS_MS.update + MARGIN);
  await flush();
  assert.ok(held.settled());
  assert.equal(seen.length, 2);
  assert.equal((await rejection(atOnce(api.setInstanceLabel(5, 'c')))).status, 500);
  await atOnce(api.setInstanceLabel(5, 'd'), 'the call after an HTTP 500');
  assert.equal(seen.length, 4);
  // pacing off (a simulator without limits): a 429 holds nothing back either
  const free = answering([429], { pacing: 'off' });
  await rejection(atOnce(free.api.setInstanceLabel(5, 'a')));
  await atOnce(free.api.setInstanceLabel(5, 'b'), '"off": the call after a 429');
  assert.equal(free.seen.length, 2);
});

test('a cancel while waiting for the turn ends the wait at once: kind aborted, nothing more sent, no warning', async () => {
  fakeTimers();
  const { api, seen, log } = lister('service');
  await atOnce(api.listInstances());
  const ac = new AbortController();
  const waiting = api.listInstances({ signal: ac.signal });
  const t = track(waiting);
  await flush();
  assert.equal(t.settled(), false, 'waiting for its turn');
  ac.abort();
  const e = await rejection(atOnce(waiting, 'the cancelled wait'));
  assert.equal(e.kind, 'aborted');
  assert.match(e.message, /cancelled while waiting for its turn/);
  assert.equal(seen.length, 1);
  assert.deepEqual(warnings(log), []);
});

test('sleep: a signal cancelled before or during the wait ends it at once; no wait leaves its listener on the signal', async () => {
  fakeTimers();
  const cancelled = () => new ApiError({ kind: 'aborted', message: 'cancelled' });
  assert.equal((await rejection(atOnce(sleep(1000, AbortSignal.abort(), cancelled)))).kind, 'aborted');
  const ac = new AbortController();
  const during = sleep(1000, ac.signal, cancelled);
  const t = track(during);
  tick(999);
  await flush();
  assert.equal(t.settled(), false);
  ac.abort();
  assert.equal((await rejection(atOnce(during))).kind, 'aborted');
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0, 'the cancel took its listener away');
  // one signal for many waits (a poller's): each wait that ends takes its listener away
  const long = new AbortController();
  for (let i = 0; i < 3; i++) {
    const w = track(sleep(10, long.signal, cancelled));
    tick(10);
    await flush();
    assert.ok(w.settled());
  }
  assert.equal(getEventListeners(long.signal, 'abort').length, 0);
});

test('the log names each request with its status and how long it took', async () => {
  fakeTimers();
  const { api, log } = scripted(() => {
    tick(1234);
    return json(200, { success: true });
  });
  await atOnce(api.destroyInstance(5), 'the request');
  assert.ok(log.lines.includes('debug DELETE /api/v0/instances/5/ -> 200 (1234 ms)'), log.text());
});

test('by default a read is tried five times, waiting below a cap that doubles from 500 ms', async () => {
  fakeTimers();
  const { api, seen } = scripted(() => json(503, { error: 'busy', msg: 'try later' }), { retry: undefined, random: () => 0.9999 });
  const call = api.currentUser();
  const t = track(call);
  const waits: number[] = [];
  for (let cap = 500; cap <= 4000; cap *= 2) {
    await flush();
    waits.push(seen.length);
    tick(cap - 1);
  }
  await flush();
  assert.ok(t.settled(), 'given up after the fourth wait');
  assert.deepEqual(waits, [1, 2, 3, 4]);
  assert.equal(seen.length, 5);
  assert.equal((await rejection(call)).status, 503);
});

test('only a 2xx status is an answer: a 300 with a JSON body is an HTTP error', async () => {
  assert.deepEqual(await scripted(() => json(299, { success: true })).api.destroyInstance(5), { success: true });
  const e = await rejection(scripted(() => json(300, { success: true })).api.destroyInstance(5));
  assert.deepEqual([e.kind, e.status], ['http', 300]);
});

const USER = { id: 1, email: 'a@b.c' };
const expired = { error: 'auth_error', msg: 'Session expired.' };

test('auth: a 401 after the user signed out elsewhere asks the fallback, and its refusal ends with the 401', async () => {
  let token: string | undefined = 'session-key';
  let asked = 0;
  const credentials = { token: () => token, onAuthFailure: () => (asked++, false) };
  const { api, seen } = scripted(() => ((token = undefined), json(401, expired)), { credentials });
  const e = await rejection(api.currentUser());
  assert.deepEqual([e.kind, e.status, asked, seen.length], ['auth', 401, 1, 1]);
});

test('auth: the resend with the fallback credentials does not use up a retry', async () => {
  let token = 'session-key';
  const credentials = { token: () => token, onAuthFailure: () => ((token = 'api-key'), true) };
  const statuses = [401, 503];
  const { api, seen } = scripted(
    () => {
      const status = statuses.shift();
      return status ? json(status, status === 401 ? expired : { error: 'busy', msg: 'later' }) : json(200, USER);
    },
    { credentials, retry: { retries: 1, baseDelayMs: 0, maxDelayMs: 0 } },
  );
  assert.equal((await api.currentUser()).email, USER.email);
  assert.deepEqual(
    seen.map((r) => r.headers.authorization),
    ['Bearer session-key', 'Bearer api-key', 'Bearer api-key'],
  );
});

test('auth: the fallback is asked once per call; credentials refused again end with the 401, never a loop', async () => {
  let asked = 0;
  // A fallback that always says it switched, and a service that refuses every key it is sent.
  const credentials = { token: () => 'always-wrong', onAuthFailure: () => (asked++, true) };
  const { api, seen } = scripted(() => json(401, expired), { credentials, retry: { retries: 2, baseDelayMs: 0, maxDelayMs: 0 } });
  const e = await rejection(atOnce(api.currentUser(), 'the call with refused credentials'));
  assert.deepEqual([e.kind, e.status, asked, seen.length], ['auth', 401, 1, 2]);
});

test('auth: only a refusal of the credentials asks for the fallback; a 403, 404 or 500 never does', async () => {
  let asked = 0;
  const credentials = { token: () => 'session-key', onAuthFailure: () => (asked++, true) };
  for (const [status, body] of [
    [403, { error: 'forbidden', msg: 'no' }],
    [404, { error: 'no_such_instance', msg: 'gone' }],
    [500, { error: 'oops', msg: 'later' }],
  ] as const) {
    const { api, seen } = scripted(() => json(status, body), { credentials, retry: { retries: 0 } });
    const e = await rejection(api.showInstance(5));
    assert.equal(e.status, status);
    assert.equal(seen.length, 1, `${status}: sent once`);
  }
  assert.equal(asked, 0, 'a sign-out elsewhere or a key switch is for 401s only');
});

test('requests in flight when the 2FA session expires: each is resent once with the API key, none fails', async () => {
  // The real connection state: the first 401 drops the session key, a later one finds it gone.
  const conn = new ConnectionState({ apiKey: 'the-api-key', baseUrl: 'http://127.0.0.1:9' });
  conn.setSessionKey('expired-session-key');
  const held: Array<() => void> = [];
  const sent: string[] = [];
  const transport: Transport = {
    request: async (req) => {
      const auth = req.headers.authorization ?? '';
      sent.push(`${req.path} ${auth.endsWith('expired-session-key') ? 'session' : 'key'}`);
      if (auth === 'Bearer the-api-key') return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"id":1,"email":"a@b.c","balance":1}' };
      // Both requests reach the service with the session key before either hears back.
      await new Promise<void>((r) => (held.push(r), held.length === 2 && held.forEach((f) => f())));
      return { status: 401, headers: { 'content-type': 'application/json' }, text: '{"success":false,"error":"auth_error","msg":"Session expired."}' };
    },
  };
  const api = createApiClient({ baseUrl: 'http://127.0.0.1:9/', credentials: conn, log: captureLogger(), transport, retry: { retries: 0 } });
  const [a, b] = await Promise.all([api.currentUser(), api.currentUser()]);
  assert.equal(a.email, 'a@b.c');
  assert.equal(b.email, 'a@b.c');
  assert.equal(conn.token(), 'the-api-key');
  assert.deepEqual(sent.map((s) => s.split(' ')[1]).sort(), ['key', 'key', 'session', 'session']);
});

test("an error that is not the service's (the credentials provider throws) is a network ApiError naming the call", async () => {
  const credentials = {
    token: (): string => {
      throw new Error('keychain locked');
    },
  };
  const { api } = scripted(() => json(200, USER), { credentials, retry: { retries: 0 } });
  const e = await rejection(api.currentUser());
  assert.ok(e instanceof ApiError);
  assert.equal(e.kind, 'network');
  assert.match(e.message, /failed: keychain locked/);
});

test('an instance id that is not a positive whole number is refused before sending, with the reason', async () => {
  const { api, seen } = scripted(() => json(200, {}));
  for (const id of [0, -2, 1.5]) {
    const e = await rejection(api.showInstance(id));
    assert.match(e.message, new RegExp(`must be a positive whole number, got ${String(id).replace('.', '\\.')}`));
  }
  assert.equal(seen.length, 0);
});

/** A local server that answers every request with USER, for the tests of the built-in transport. */
async function withUserServer(fn: (baseUrl: string, server: Server) => Promise<void>): Promise<void> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(USER)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, server);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test('closing the built-in transport ends its kept-alive connections', { timeout: 10_000 }, async () => {
  await withUserServer(async (baseUrl, server) => {
    let open = 0;
    let allClosed = () => {};
    // no keep-alive hint of its own would end the connections first: undici follows the server's
    server.keepAliveTimeout = 120_000;
    server.on('connection', (socket) => {
      open++;
      socket.on('close', () => --open === 0 && allClosed());
    });
    const api = createApiClient({ baseUrl, credentials: keyCredentials(), log: captureLogger(), proxy: null });
    await api.currentUser();
    assert.ok(open > 0, 'kept alive after the answer');
    const closed = new Promise<void>((r) => (allClosed = r));
    await closeApiTransport();
    await closed; // (a transport left open: the test's timeout ends it)
    assert.equal(open, 0);
  });
});

test(
  'a transport bundle that fails to load fails that request only: the next request loads it again (the built dist/client.js)',
  { timeout: 10_000 },
  async () => {
    // The unit bundles inline the transport; the built extension imports dist/transport.js on the
    // first request. A load that fails (a broken or half-replaced install) must not stay failed.
    const dist = join(repoRoot(), 'dist');
    assert.ok(existsSync(join(dist, 'client.js')), 'dist/ is not built: run `node scripts/build.mjs` first');
    await inTempDir('gpu-rental-transport-', (dir) =>
      withUserServer(async (baseUrl) => {
        for (const f of ['client.js', 'schemas.js', 'l10n.js']) copyFileSync(join(dist, f), join(dir, f));
        const built = createRequire(__filename)(join(dir, 'client.js')) as typeof import('../../../src/api/client');
        const api = built.createApiClient({ baseUrl, credentials: keyCredentials(), log: captureLogger(), proxy: null, retry: { retries: 0 } });
        const e = await api.currentUser().then(
          () => assert.fail('answered without a transport'),
          (err: unknown) => err as ApiError,
        );
        assert.equal(e.kind, 'network');
        assert.match(e.message, /^GET \/api\/v0\/users\/current\/ failed: .*transport\.js/);
        // Deactivation may close the transport while such a load is under way: closing settles
        // quietly at every moment of it (the load fails a few microtasks after the request starts).
        for (let ticks = 0; ticks <= 10; ticks++) {
          const failing = api.currentUser().catch(() => 'failed');
          for (let i = 0; i < ticks; i++) await null;
          await built.closeApiTransport();
          assert.equal(await failing, 'failed');
        }
        copyFileSync(join(dist, 'transport.js'), join(dir, 'transport.js'));
        assert.equal((await api.currentUser()).email, USER.email);
        await built.closeApiTransport();
      }),
    );
  },
);

// ---- which failures are warned about -------------------------------------------------------

let h: Harness;
useHarness({ era: 'seed', instances: 1 }, (x) => (h = x));

test("an era switch of the instance list is no failure: no warning for v1's plain 404 (old service) nor v0's 410 deprecated_endpoint (live service)", async () => {
  forgetListEras();
  await h.ctl.setEra('seed');
  const log = captureLogger();
  const api = h.client({ log });
  assert.equal((await api.listInstances()).source, 'v0');
  await h.ctl.setEra('today');
  assert.equal((await api.listInstances()).source, 'v1');
  assert.deepEqual(warnings(log), []);
  assert.deepEqual((await h.ctl.requests()).map((r) => `${r.path} ${r.status}`).slice(-4), [
    '/api/v1/instances/ 404',
    '/api/v0/instances/ 200',
    '/api/v0/instances/ 410',
    '/api/v1/instances/ 200',
  ]);
});

test('any other failure of the list is warned about: a 404 or 410 with another error, or another status, or not of kind http', async () => {
  await h.ctl.setEra('today');
  const faults: Array<[fault: { status: number; error: string }, warned: RegExp]> = [
    [{ status: 404, error: 'not_found' }, /failed: http 404 not_found$/], // a JSON body: the service's answer, not a missing endpoint
    [{ status: 410, error: 'gone_for_good' }, /failed: http 410 gone_for_good$/],
    [{ status: 400, error: 'deprecated_endpoint' }, /failed: http 400 deprecated_endpoint$/],
  ];
  for (const [fault, warned] of faults) {
    forgetListEras();
    const log = captureLogger();
    await h.ctl.fault({ kind: 'http_error', ...fault, path: '/api/v1/instances' });
    await rejection(h.client({ log, retry: { retries: 0 } }).listInstances());
    assert.equal(warnings(log).length, 1, JSON.stringify(fault));
    assert.match(warnings(log)[0]!, warned);
  }
  // without a JSON body: an HTML 500 page, a 404 that says the key is wrong (signed out), a plain
  // 404 of a call that is not the list
  const plain: ReadonlyArray<readonly [(api: ServiceApi) => Promise<unknown>, number, string, RegExp]> = [
    [(api: ServiceApi) => api.listInstances(), 500, 'Internal Server Error', /GET \/api\/v1\/instances\/\S* failed: http 500$/],
    [(api: ServiceApi) => api.listInstances(), 404, 'Invalid user key', /GET \/api\/v1\/instances\/\S* failed: auth 404$/],
    [(api: ServiceApi) => api.currentUser(), 404, 'Not Found', /GET \/api\/v0\/users\/current\/ failed: http 404$/],
  ];
  for (const [call, status, text, warned] of plain) {
    forgetListEras();
    const { api, log, seen } = scripted(() => json(status, `<html><body>${text}</body></html>`, { 'content-type': 'text/html' }), { retry: { retries: 0 } });
    await rejection(call(api));
    assert.equal(seen.length, 1, `${status} ${text}: not asked again`);
    assert.equal(warnings(log).length, 1, `${status} ${text}`);
    assert.match(warnings(log)[0]!, warned);
  }
});
