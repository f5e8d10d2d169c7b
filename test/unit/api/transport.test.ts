// Proxy routing of the real undici transport: a small local CONNECT proxy proves that requests
// really go through it (VS Code's http.proxy, or HTTP(S)_PROXY), that noProxy/NO_PROXY bypass it,
// and that the proxy's credentials are sent to it and never logged. The service stands on this
// machine's non-loopback address behind TLS (a self-signed front to the simulator): loopback URLs
// are never proxied, and a key never goes over plain http off this computer.
// The key check is built by the composition root (src/app/apiAccess.ts), loaded with a stand-in for `vscode`.
import '../../../bench/vscodeStub.cjs';
import { test, before, after, beforeEach, type TestContext } from 'node:test';
import { requireTools } from '../tools';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { RunningSim } from '../../../src/sim';
import { startSim } from '../../kit/sim';
import { closeApiTransport, createApiClient, type ApiClientOptions } from '../../../src/api/client';
import { keyCredentials, rejection } from './helpers';
import { captureLogger } from '../../kit/log';
import { networkInterfaces, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import { request as httpRequest } from 'node:http';
import { apiClientFactory, keyCheck } from '../../../src/app/apiAccess';
import { apiKeyOwner } from '../../../src/account/apiKey';
import { ConnectionState } from '../../../src/core/connection';
import { Emitter } from '../../../src/core/events';

/** This machine's first non-loopback IPv4 address: a service URL that is not loopback. */
const LAN_IP = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
let front: HttpsServer | undefined;
/** https://LAN_IP:port: a self-signed TLS front forwarding to the simulator. */
let frontUrl = '';
let tlsDir = '';
let cert: { key: Buffer; cert: Buffer } | undefined;

interface Tunnel {
  target: string;
  auth: string | undefined;
}

let sim: RunningSim;
let proxy: Server;
let proxyUrl: string;
const tunnels: Tunnel[] = [];
const sockets = new Set<Socket>();
/** When set, the proxy answers 407 unless Proxy-Authorization is Basic base64(this). */
let requiredAuth: string | undefined;

before(async () => {
  sim = await startSim({ testControl: true, seed: 1, instances: 1, rateLimitPerSecond: 1000 });
  proxy = createServer((_req, res) => {
    res.writeHead(405).end('this proxy only tunnels');
  });
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const auth = req.headers['proxy-authorization'];
    tunnels.push({ target: req.url ?? '', auth });
    if (requiredAuth && auth !== `Basic ${Buffer.from(requiredAuth).toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  if (!LAN_IP) return;
  tlsDir = mkdtempSync(join(tmpdir(), 'gpu-rental-proxy-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(tlsDir, 'key.pem'),
        '-out',
        join(tlsDir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        `/CN=${LAN_IP}`,
        '-addext',
        `subjectAltName=IP:${LAN_IP}`,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return; // no openssl: the tests that need the front skip
  }
  cert = { key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')) };
  const simPort = Number(new URL(sim.url).port);
  front = createHttps(cert, (req, res) => {
    const up = httpRequest({ host: '127.0.0.1', port: simPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => front!.listen(0, LAN_IP, r));
  frontUrl = `https://${LAN_IP}:${(front.address() as AddressInfo).port}`;
});

/**
 * Skips a test that needs the non-loopback TLS front: without openssl it is skipped locally and
 * fails in CI with the install hint (test/unit/tools.ts); without a non-loopback address it skips.
 */
function needFront(t: TestContext): boolean {
  if (front) return true;
  if (LAN_IP) return requireTools(t, 'openssl') && assert.fail('the TLS front did not start although openssl is installed');
  t.skip('this machine has no non-loopback IPv4 address');
  return false;
}

after(async () => {
  await closeApiTransport();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
  if (front) {
    front.closeAllConnections();
    await new Promise<void>((r) => front!.close(() => r()));
  }
  if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
  await sim.close();
});

const ENV_KEYS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const;
const savedEnv: Record<string, string | undefined> = {};
beforeEach(async () => {
  tunnels.length = 0;
  requiredAuth = undefined;
  for (const k of ENV_KEYS) {
    if (!(k in savedEnv)) savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  await closeApiTransport(); // fresh connections: a kept-alive tunnel would hide a new CONNECT
});
after(() => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

const frontHostPort = () => new URL(frontUrl).host;
const log = captureLogger();
/** A client of the service behind the TLS front; through a proxy its self-signed certificate is accepted (strictSSL off). */
const client = (over: Partial<ApiClientOptions> = {}) =>
  createApiClient({ baseUrl: frontUrl, credentials: keyCredentials(), log, timeoutMs: 5000, retry: { retries: 0 }, ...over });
const lax = (p: { url?: string; noProxy?: string[] } = {}) => ({ ...p, strictSSL: false });

test('http.proxy: every request goes through the proxy as a CONNECT tunnel to the service', async (t) => {
  if (!needFront(t)) return;
  const api = client({ proxy: lax({ url: proxyUrl }) });
  const list = await api.listInstances();
  assert.equal(list.instances.length, 1);
  await api.currentUser();
  assert.ok(tunnels.length >= 1);
  assert.ok(
    tunnels.every((x) => x.target === frontHostPort()),
    JSON.stringify(tunnels),
  );
  assert.equal(tunnels[0]!.auth, undefined);
});

test('Set API Key checks the key through http.proxy like every other request: one factory makes every client', async (t) => {
  if (!needFront(t)) return;
  const stored = new Map<string, string>();
  const secrets = {
    get: async (n: string) => stored.get(n),
    store: async (n: string, v: string) => void stored.set(n, v),
    delete: async (n: string) => void stored.delete(n),
    onDidChange: new Emitter<string>().event,
  };
  const conn = new ConnectionState({ baseUrl: frontUrl });
  const clients = apiClientFactory({ log, isDemo: () => false, readProxy: () => lax({ url: proxyUrl }) });
  const saved = await apiKeyOwner(secrets, conn, keyCheck(conn, clients)).save('sim-api-key');
  assert.equal(saved.ok, true, JSON.stringify(saved));
  assert.ok(tunnels.length >= 1 && tunnels.every((x) => x.target === frontHostPort()), `the key check went around the proxy: ${JSON.stringify(tunnels)}`);
  // The connection's requests then use the same factory, and the same proxy.
  tunnels.length = 0;
  await closeApiTransport();
  await (await clients(frontUrl, conn)).currentUser();
  assert.ok(tunnels.length >= 1, 'the signed-in client went around the proxy');
});

test('http.noProxy bypasses the proxy for the listed host (and host:port)', async (t) => {
  if (!needFront(t)) return;
  // direct, the self-signed certificate is checked (and refused): what matters is that no tunnel was asked for
  await rejection(client({ proxy: lax({ url: proxyUrl, noProxy: [LAN_IP!] }) }).listInstances());
  await rejection(client({ proxy: lax({ url: proxyUrl, noProxy: [frontHostPort()] }) }).currentUser());
  assert.deepEqual(tunnels, []);
  await client({ proxy: lax({ url: proxyUrl, noProxy: ['example.org'] }) }).currentUser();
  assert.equal(tunnels.length, 1, 'another host in noProxy does not bypass');
});

test('HTTPS_PROXY / NO_PROXY from the environment when no http.proxy is set; null means direct', async (t) => {
  if (!needFront(t)) return;
  process.env.HTTPS_PROXY = proxyUrl;
  await client({ proxy: lax() }).listInstances();
  assert.equal(tunnels.length, 1);
  assert.equal(tunnels[0]!.target, frontHostPort());
  await rejection(client({ proxy: null }).listInstances());
  assert.equal(tunnels.length, 1, 'null is always direct');
  await closeApiTransport();
  process.env.NO_PROXY = `localhost,${LAN_IP}`;
  await rejection(client({ proxy: lax() }).listInstances());
  assert.equal(tunnels.length, 1, 'NO_PROXY bypasses');
  // http.proxy wins over the environment
  delete process.env.NO_PROXY;
  process.env.HTTPS_PROXY = 'http://127.0.0.1:9';
  await client({ proxy: lax({ url: proxyUrl }) }).listInstances();
  assert.equal(tunnels.length, 2);
});

test('a loopback service URL (127.0.0.1, localhost, [::1]) never goes through a proxy, whatever http.proxy, HTTP_PROXY and NO_PROXY say', async () => {
  process.env.HTTP_PROXY = proxyUrl;
  process.env.HTTPS_PROXY = proxyUrl;
  process.env.NO_PROXY = 'localhost'; // does not name 127.0.0.1 or [::1]: not needed either
  const port = new URL(sim.url).port;
  for (const base of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
    assert.equal((await client({ baseUrl: base, proxy: { url: proxyUrl } }).listInstances()).instances.length, 1, base);
    assert.equal((await client({ baseUrl: base }).listInstances()).instances.length, 1, `${base} (environment only)`);
  }
  // the simulator listens on IPv4 only: [::1] is refused, and still never tunnelled
  const v6 = await rejection(client({ baseUrl: `http://[::1]:${port}`, proxy: { url: proxyUrl } }).listInstances());
  assert.equal(v6.kind, 'network');
  assert.deepEqual(tunnels, [], 'no CONNECT was asked for: the key never passed the proxy');
});

test('a key is never sent over plain http to a non-loopback URL: refused before anything leaves, with a clear error', async () => {
  const sent = sim.state.requests.length;
  for (const base of [`http://${LAN_IP ?? '192.0.2.1'}:${new URL(sim.url).port}`, 'http://gpu.example.com']) {
    for (const proxy of [undefined, { url: proxyUrl }, null]) {
      const e = await rejection(client({ baseUrl: base, ...(proxy !== undefined ? { proxy } : {}) }).listInstances());
      assert.equal(e.kind, 'invalid_request');
      assert.match(e.userMessage(), /Nothing was sent: the service URL .* uses plain http:\/\/ and is not on this computer.*https:\/\//);
      assert.ok(!`${e.message} ${e.userMessage()}`.includes('sim-api-key'));
    }
  }
  assert.deepEqual(tunnels, []);
  assert.equal(sim.state.requests.length, sent, 'the service saw nothing');
});

test('proxy credentials reach the proxy only; a 407 is a clear error that never shows them, and a creation is not ambiguous', async (t) => {
  if (!needFront(t)) return;
  requiredAuth = 'alice:pr0xy-s3cret';
  const good = client({ proxy: lax({ url: 'http://alice:pr0xy-s3cret@' + proxyUrl.slice('http://'.length) }) });
  await good.listInstances();
  assert.equal(tunnels[0]!.auth, `Basic ${Buffer.from('alice:pr0xy-s3cret').toString('base64')}`);

  await closeApiTransport();
  const bad = client({ proxy: lax({ url: 'http://alice:wrong-pass@' + proxyUrl.slice('http://'.length) }) });
  const e = await rejection(bad.listInstances());
  assert.equal(e.kind, 'network');
  assert.match(e.message, /proxy refused the connection \(HTTP 407\): check the user and password in the http\.proxy setting/);
  const c = await rejection(bad.createInstance(1, { image: 'ubuntu' }));
  assert.equal(c.kind, 'network', 'the request never reached the service: safe to say it was not rented');
  const all = `${log.text()}\n${e.message}\n${c.message}`;
  for (const secret of ['pr0xy-s3cret', 'wrong-pass', Buffer.from('alice:wrong-pass').toString('base64')]) assert.ok(!all.includes(secret), secret);
  assert.equal(sim.state.requests.filter((r) => r.path.includes('/asks/')).length, 0);
});

test('http.proxyStrictSSL: a self-signed service behind the proxy is refused by default and reached with strictSSL off', async (t) => {
  if (!needFront(t)) return;
  const strict = client({ proxy: { url: proxyUrl } });
  const e = await rejection(strict.currentUser());
  assert.equal(e.kind, 'network');
  assert.match(e.message, /CERT|certificate|SELF_SIGNED/i);
  assert.equal(tunnels.length, 1, 'it went through the proxy');
  await closeApiTransport();
  assert.ok((await client({ proxy: lax({ url: proxyUrl }) }).currentUser()).email);
  assert.equal(tunnels.length, 2);
  // not behind the proxy (noProxy), the setting does not apply: certificates are checked
  await closeApiTransport();
  const direct = client({ proxy: lax({ url: proxyUrl, noProxy: [LAN_IP!] }) });
  assert.equal((await rejection(direct.currentUser())).kind, 'network');
  assert.equal(tunnels.length, 2);
});
