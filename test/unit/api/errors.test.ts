// The failure kinds, with and without an HTTP status, 2xx answers, refusals, retries, the request
// itself and the masking of what the service echoes, on scripted answers. (Errors the simulator
// answers with, every HTTP status and 2FA code: simErrors.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rejection, scripted, json, transportError } from './helpers';
import { ApiError, parseErrorBody } from '../../../src/api/errors';
import type { ApiClientOptions } from '../../../src/api/client';

test('error bodies: spec shape, 429 {detail}, plain text', () => {
  assert.deepEqual(parseErrorBody('{"success":false,"error":"x","msg":"y"}'), {
    code: 'x',
    msg: 'y',
    failCount: undefined,
    lockedUntil: undefined,
    structured: true,
    json: true,
  });
  assert.equal(parseErrorBody('{"detail":"API requests too frequent"}').msg, 'API requests too frequent');
  const t = parseErrorBody('<html><body>502 Bad Gateway</body></html>');
  assert.equal(t.structured, false);
  assert.equal(t.msg, '502 Bad Gateway');
});

test('kinds without a status: not signed in, network, timeout, aborted, malformed, ambiguous', () => {
  const mk = (kind: ApiError['kind']) => new ApiError({ kind, message: 'x', method: 'GET', path: '/api/v0/instances/' }).userMessage();
  assert.match(mk('auth'), /not signed in/);
  assert.match(mk('network'), /Could not reach the service/);
  assert.match(mk('timeout'), /did not answer in time/);
  assert.match(mk('aborted'), /cancelled/);
  assert.match(mk('malformed'), /GET \/api\/v0\/instances\//);
  assert.match(mk('ambiguous'), /unknown whether a machine was rented.*check your instance list/);
});

// ---- how the client reads an answer (answers.ts), through a scripted transport ------------

test('2xx answers: JSON content types (any case, +json, charset), a missing type, an empty body only where allowed', async () => {
  for (const ct of ['application/json', 'Application/JSON; charset=utf-8', 'application/vnd.api+json', 'application/problem+json']) {
    const { api } = scripted(() => json(200, { success: true }, { 'content-type': ct }));
    assert.deepEqual(await api.destroyInstance(5), { success: true }, ct);
  }
  assert.deepEqual(await scripted(() => json(200, { success: true }, {})).api.destroyInstance(5), { success: true }, 'no content type: read as JSON');
  assert.deepEqual(await scripted(() => json(200, '  \n')).api.destroyInstance(5), {}, 'an empty success answer where the endpoint allows it');
  for (const ct of ['text/html', 'application/jsonp', 'text/json']) {
    const e = await rejection(scripted(() => json(200, { success: true }, { 'content-type': `${ct}; charset=utf-8` })).api.destroyInstance(5));
    assert.equal(e.kind, 'malformed', ct);
    assert.match(e.message, new RegExp(`content type ${ct.replace('+', '\\+')} instead of JSON\\)$`), ct);
  }
  // the type must start with application/: JSON named in a parameter does not make it JSON
  const param = await rejection(
    scripted(() => json(200, { success: true }, { 'content-type': 'text/plain; profile=application/json' })).api.destroyInstance(5),
  );
  assert.equal(param.kind, 'malformed');
  assert.match(param.message, /content type text\/plain instead of JSON\)$/);
  const empty = await rejection(scripted(() => json(200, '')).api.listInstances());
  assert.equal(empty.kind, 'malformed', 'an empty list answer is not an empty list');
  assert.match(empty.message, /\(the body is not JSON\)$/);
  assert.equal(empty.status, 200);
});

test('2xx answers: a refusal needs success false AND a message; otherwise the schema decides, naming the fields', async () => {
  for (const body of [
    { success: false, error: 'x_refused' },
    { success: false, msg: 'no' },
    { success: false, message: 'no' },
  ]) {
    const e = await rejection(scripted(() => json(200, body)).api.destroyInstance(5));
    assert.equal(e.kind, 'http', JSON.stringify(body));
    assert.equal(e.status, 200);
  }
  // success false alone (no message) is an answer like any other: the schema reads it
  assert.deepEqual(await scripted(() => json(200, { success: false })).api.destroyInstance(5), { success: false });
  assert.deepEqual(
    await scripted(() => json(200, { success: 'false', msg: 'kept' })).api.destroyInstance(5),
    { msg: 'kept' },
    'only the boolean false refuses',
  );
  for (const body of [
    { success: false, msg: 7 },
    { success: false, error: 7 },
    { success: false, message: 7 },
  ])
    assert.equal((await scripted(() => json(200, body)).api.destroyInstance(5)).success, false, `no text, no refusal: ${JSON.stringify(body)}`);
  const arr = await rejection(scripted(() => json(200, [{ success: false, msg: 'no' }])).api.destroyInstance(5));
  assert.equal(arr.kind, 'malformed', 'an array is not a refusal');
  assert.match(arr.message, /fields \(root\) do not match/);
  const fields = await rejection(scripted(() => json(200, { instances: [{ id: 'x', label: 5 }] })).api.listInstances());
  assert.equal(fields.kind, 'malformed');
  assert.match(fields.message, /fields instances\.0\.id(, [\w.]+)* do not match\)$/);
  // JSON null is no object to look into: the schema refuses it, nothing throws on the way (a
  // TypeError there would be taken for a network failure and the read sent again)
  const nul = scripted(() => json(200, 'null'));
  const none = await rejection(nul.api.destroyInstance(5));
  assert.deepEqual([none.kind, none.status, nul.seen.length], ['malformed', 200, 1]);
  assert.match(none.message, /fields \(root\) do not match\)$/);
  // a list of many bad rows names the first five fields, not all of them
  const many = await rejection(scripted(() => json(200, { instances: Array.from({ length: 8 }, (_, i) => ({ id: `x${i}` })) })).api.listInstances());
  assert.match(many.message, /fields instances\.0\.id, instances\.1\.id, instances\.2\.id, instances\.3\.id, instances\.4\.id do not match\)$/);
});

test('a creation whose answer cannot be read is ambiguous; a 5xx without a structured body too, with a structured one a refusal', async () => {
  const req = { image: 'i', label: 'x', disk: 10, runtype: 'ssh_direct' as const };
  const unreadable = await rejection(scripted(() => json(200, 'not json')).api.createInstance(7, req));
  assert.equal(unreadable.kind, 'ambiguous');
  assert.equal(unreadable.causeKind, 'malformed');
  assert.equal(unreadable.status, 200);
  for (const status of [500, 502, 599]) {
    const e = await rejection(scripted(() => json(status, '<html>oops</html>', { 'content-type': 'text/html' })).api.createInstance(7, req));
    assert.equal(e.kind, 'ambiguous', String(status));
    assert.equal(e.causeKind, 'http');
    assert.equal(e.status, status);
  }
  const explained = await rejection(scripted(() => json(500, { success: false, error: 'server_error', msg: 'db down' })).api.createInstance(7, req));
  assert.equal(explained.kind, 'http', 'the service said it failed');
  const client = await rejection(scripted(() => json(499, 'closed', { 'content-type': 'text/plain' })).api.createInstance(7, req));
  assert.equal(client.kind, 'http', 'a 4xx without a body is no doubt');
  const read = await rejection(scripted(() => json(500, 'oops', { 'content-type': 'text/plain' }), { retry: { retries: 0 } }).api.listInstances());
  assert.equal(read.kind, 'http', 'only a creation is ambiguous');
});

test('Retry-After: a positive number of seconds is kept, anything else is not', async () => {
  const after = async (v: string) =>
    (
      await rejection(
        scripted(() => json(429, { detail: 'slow down' }, { 'content-type': 'application/json', 'retry-after': v }), {
          retry: { retries: 0 },
        }).api.listInstances(),
      )
    ).retryAfterSec;
  assert.equal(await after('7'), 7);
  assert.equal(await after('0.5'), 0.5);
  assert.equal(await after('0'), undefined);
  assert.equal(await after('-3'), undefined);
  assert.equal(await after('soon'), undefined);
  assert.equal(await after('Infinity'), undefined);
});

test('transport failures: each kind, and a creation already sent is ambiguous whatever the kind', async () => {
  const req = { image: 'i', label: 'x', disk: 10, runtype: 'ssh_direct' as const };
  const fail = (e: unknown, over: Partial<ApiClientOptions> = {}) =>
    scripted(
      () => {
        throw e;
      },
      { retry: { retries: 0 }, timeoutMs: 1234, ...over },
    );
  for (const kind of ['network', 'timeout', 'aborted', 'too_large'] as const) {
    const sent = await rejection(fail(transportError(kind, true)).api.createInstance(7, req));
    assert.equal(sent.kind, 'ambiguous', kind);
    assert.equal(sent.causeKind, kind);
    const unsent = await rejection(fail(transportError(kind, false)).api.createInstance(7, req));
    assert.equal(unsent.kind, kind, `${kind} before sending`);
    const read = await rejection(fail(transportError(kind, true)).api.listInstances());
    assert.equal(read.kind, kind, `${kind} on a read`);
  }
  assert.match((await rejection(fail(transportError('timeout', true)).api.createInstance(7, req))).message, /outcome is unknown \(no answer within 1234 ms\)/);
  assert.match((await rejection(fail(transportError('aborted', true)).api.createInstance(7, req))).message, /outcome is unknown \(cancelled after sending\)/);
  assert.match((await rejection(fail(transportError('network', true)).api.createInstance(7, req))).message, /outcome is unknown \(network happened\)/);
  assert.match((await rejection(fail(transportError('timeout', false)).api.listInstances())).message, /: no answer within 1234 ms$/);
  assert.match((await rejection(fail(transportError('too_large', false)).api.listInstances())).message, /: too_large happened$/);
  assert.match((await rejection(fail(transportError('network', false)).api.listInstances())).message, /: network happened$/);
  // anything else thrown by the transport is the HTTP component failing, never ambiguous
  const odd = await rejection(fail(new TypeError('undici missing')).api.createInstance(7, req));
  assert.equal(odd.kind, 'network');
  assert.match(odd.message, /the HTTP component failed \(undici missing\)/);
  const str = await rejection(fail('plain string').api.listInstances());
  assert.match(str.message, /the HTTP component failed \(plain string\)/);
  assert.equal(
    (await rejection(fail({ name: 'Other', kind: 'timeout', sent: true }).api.createInstance(7, req))).kind,
    'network',
    'only a TransportError is one',
  );
  // nothing, or a function (a class thrown instead of an instance) named like one: the component failing too
  for (const thrown of [undefined, null, class TransportError {}]) {
    const e = await rejection(fail(thrown).api.createInstance(7, req));
    assert.equal(e.kind, 'network', String(thrown));
    assert.ok(e.message.includes(`the HTTP component failed (${String(thrown)})`), e.message);
  }
});

// ---- what the pipeline (pipeline.ts) sends, and when it asks again ------------------------

test('the request: base URL without trailing slashes, bearer key, JSON headers only with a body, user agent, timeout, proxy', async () => {
  const { api, seen } = scripted(() => json(200, { success: true }), { baseUrl: 'http://127.0.0.1:9///', proxy: null });
  await api.destroyInstance(5);
  await api.setInstanceLabel(5, 'x');
  const [del, put] = seen;
  assert.equal(del!.baseUrl, 'http://127.0.0.1:9');
  assert.deepEqual(del!.headers, { authorization: 'Bearer sim-api-key', accept: 'application/json', 'user-agent': 'gpu-rental-vscode' });
  assert.equal(del!.body, undefined);
  assert.equal(del!.timeoutMs, 30_000);
  assert.equal(del!.proxy, null);
  assert.equal('signal' in del!, false);
  assert.equal(put!.headers['content-type'], 'application/json');
  assert.equal(put!.body, '{"label":"x"}');
  const own = scripted(() => json(200, { success: true }), { userAgent: 'ua/1', timeoutMs: 77 });
  const ac = new AbortController();
  await own.api.destroyInstance(5, { signal: ac.signal, timeoutMs: 55 });
  await own.api.destroyInstance(5);
  assert.equal(own.seen[0]!.headers['user-agent'], 'ua/1');
  assert.equal(own.seen[0]!.timeoutMs, 55);
  assert.equal(own.seen[0]!.signal, ac.signal);
  assert.equal(own.seen[1]!.timeoutMs, 77);
});

test('the key never travels in clear: http:// only to loopback, refused before sending with the host named', async () => {
  for (const [baseUrl, host] of [
    ['http://console.example.com', 'console.example.com'],
    ['http://10.0.0.2:8080/', '10.0.0.2:8080'],
    ['not a url', 'that address'],
  ] as const) {
    const { api, seen, log } = scripted(() => json(200, { success: true }), { baseUrl });
    const e = await rejection(api.destroyInstance(5));
    assert.equal(e.kind, 'invalid_request', baseUrl);
    assert.equal(e.code, 'insecure_url');
    assert.equal(e.msg, host);
    assert.match(e.message, new RegExp(`DELETE /api/v0/instances/5/: not sent: the API key would travel in clear text to ${host.replace('.', '\\.')}$`));
    assert.equal(seen.length, 0);
    assert.doesNotMatch(log.text(), /failed/, 'a refusal to send is not logged as a failure');
  }
  const none = scripted(() => json(200, { success: true }), { credentials: { token: () => undefined } });
  const e = await rejection(none.api.destroyInstance(5));
  assert.equal(e.kind, 'auth');
  assert.equal(none.seen.length, 0);
  assert.equal(await none.api.destroyInstance(0).catch((x: ApiError) => x.kind), 'invalid_request', 'ids are checked before anything');
  assert.equal(await none.api.destroyInstance(1.5).catch((x: ApiError) => x.kind), 'invalid_request');
});

test('retries: safe requests only, on network errors, 429 and 502-504, never on 500 or 4xx; each retry logged, the last failure warned once', async () => {
  const statuses = (codes: number[]) => {
    let i = 0;
    return () => json(codes[Math.min(i++, codes.length - 1)]!, codes[Math.min(i - 1, codes.length - 1)] === 200 ? { instances: [] } : { error: 'e', msg: 'm' });
  };
  for (const code of [429, 502, 503, 504]) {
    const { api, seen } = scripted(statuses([code, 200]));
    await api.listInstances();
    assert.equal(seen.length, 2, String(code));
  }
  for (const code of [500, 400, 404, 410]) {
    const { api, seen, log } = scripted(statuses([code, 200]), { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    await rejection(api.currentUser());
    assert.equal(seen.length, 1, String(code));
    assert.match(log.text(), new RegExp(`warn GET /api/v0/users/current/? failed: http ${code} e`));
  }
  // a search is a POST that only reads: retried; a state change is not
  const search = scripted(statuses([503, 200]));
  await search.api.searchOffers({ limit: 1 }).catch(() => undefined);
  assert.equal(search.seen.length, 2);
  const stop = scripted(statuses([503, 200]));
  await rejection(stop.api.setInstanceState(5, 'stopped'));
  assert.equal(stop.seen.length, 1);
  // network errors are retried (safe requests), and the attempts are counted
  let n = 0;
  const flaky = scripted(() => {
    if (n++ < 2) throw transportError('network', false);
    return json(200, { instances: [] });
  });
  await flaky.api.listInstances();
  assert.equal(flaky.seen.length, 3);
  assert.match(flaky.log.text(), /info GET \S+: network, retry 1\/2 in \d+ ms[\s\S]*retry 2\/2/);
  const down = scripted(() => {
    throw transportError('network', false);
  });
  await rejection(down.api.listInstances());
  assert.equal(down.seen.length, 3, 'the first try and 2 retries');
  assert.equal(down.log.lines.filter((l) => l.startsWith('warn')).length, 1);
});

test('a cancelled request is neither retried nor warned about; an already cancelled signal sends nothing', async () => {
  const ac = new AbortController();
  ac.abort();
  const { api, seen, log } = scripted(() => json(200, { instances: [] }));
  const e = await rejection(api.listInstances({ signal: ac.signal }));
  assert.equal(e.kind, 'aborted');
  assert.equal(seen.length, 0);
  assert.doesNotMatch(log.text(), /warn/);
  const live = new AbortController();
  const slow = scripted(() => {
    live.abort();
    throw transportError('aborted', false);
  });
  assert.equal((await rejection(slow.api.listInstances({ signal: live.signal }))).kind, 'aborted');
  assert.equal(slow.seen.length, 1);
  assert.doesNotMatch(slow.log.text(), /warn|retry/);
});

test('secrets of a request are masked in what the service echoes: registry logins and each of their words, 2FA codes', async () => {
  const { api } = scripted((req) => json(500, { error: 'e', msg: `echo ${req.body ?? ''} | someuser | hunter22 | docker.io` }), { retry: { retries: 0 } });
  const e = await rejection(
    api.createInstance(7, { image: 'i', label: 'x', disk: 10, runtype: 'ssh_direct', image_login: '-u someuser -p hunter22 docker.io' }),
  );
  assert.doesNotMatch(`${e.message} ${e.msg}`, /hunter22|someuser|docker\.io/);
  assert.match(e.msg ?? '', / \| \*\*\* \| \*\*\* \| \*\*\*$/, 'each word of the login on its own');
  assert.doesNotMatch(e.msg ?? '', /^echo.*-\*\*\*/, 'flags are not secrets');
  // long flags too (4 characters and more, so the registry would keep them): they stay readable
  const long = scripted((req) => json(500, { error: 'e', msg: `bad login: ${JSON.parse(req.body ?? '{}').image_login}` }), { retry: { retries: 0 } });
  const l = await rejection(
    long.api.createInstance(7, {
      image: 'i',
      label: 'x',
      disk: 10,
      runtype: 'ssh_direct',
      image_login: '--username someuser --password hunter22 registry.example',
    }),
  );
  assert.equal(l.msg, 'bad login: ***', 'the whole login');
  const words = scripted(() => json(500, { error: 'e', msg: 'user someuser, flags --username --password, host registry.example' }), { retry: { retries: 0 } });
  const w = await rejection(
    words.api.createInstance(7, {
      image: 'i',
      label: 'x',
      disk: 10,
      runtype: 'ssh_direct',
      image_login: '--username someuser --password hunter22 registry.example',
    }),
  );
  assert.equal(w.msg, 'user ***, flags --username --password, host ***');
  const tfa = scripted(() => json(400, { error: 'bad_code', msg: 'got 246810 and sec-ret-77' }), { retry: { retries: 0 } });
  const t = await rejection(tfa.api.tfaLogin({ tfa_method: 'totp', code: '246810', secret: 'sec-ret-77' }));
  assert.equal(t.msg, 'got *** and ***', t.message);
});
