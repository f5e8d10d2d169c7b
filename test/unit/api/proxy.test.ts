// Proxy routing of the real undici transport: a small local CONNECT proxy proves that requests
// really go through it (VS Code's http.proxy, or HTTP(S)_PROXY), that noProxy/NO_PROXY bypass it,
// and that the proxy's credentials are sent to it and never logged.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { requireTools } from '../tools';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { startSimulator, type RunningSim } from '../../../src/sim';
import { closeApiTransport, createApiClient, type ApiClientOptions } from '../../../src/api/client';
import { captureLogger, keyCredentials, rejection } from './helpers';

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
  sim = await startSimulator({ port: 0, testControl: true, seed: 1, instances: 1, rateLimitPerSecond: 1000 });
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
});

after(async () => {
  await closeApiTransport();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
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

const simHostPort = () => new URL(sim.url).host;
const log = captureLogger();
const client = (over: Partial<ApiClientOptions> = {}) =>
  createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log, timeoutMs: 5000, retry: { retries: 0 }, ...over });

test('http.proxy: every request goes through the proxy as a CONNECT tunnel to the service', async () => {
  const api = client({ proxy: { url: proxyUrl } });
  const list = await api.listInstances();
  assert.equal(list.instances.length, 1);
  await api.currentUser();
  assert.ok(tunnels.length >= 1);
  assert.ok(tunnels.every((t) => t.target === simHostPort()), JSON.stringify(tunnels));
  assert.equal(tunnels[0]!.auth, undefined);
});

test('http.noProxy bypasses the proxy for the listed host (and host:port)', async () => {
  await client({ proxy: { url: proxyUrl, noProxy: ['127.0.0.1'] } }).listInstances();
  await client({ proxy: { url: proxyUrl, noProxy: [simHostPort()] } }).currentUser();
  assert.deepEqual(tunnels, []);
  await client({ proxy: { url: proxyUrl, noProxy: ['example.org'] } }).currentUser();
  assert.equal(tunnels.length, 1, 'another host in noProxy does not bypass');
});

test('HTTP_PROXY / NO_PROXY from the environment when no http.proxy is set; null means direct', async () => {
  process.env.HTTP_PROXY = proxyUrl;
  await client().listInstances();
  assert.equal(tunnels.length, 1);
  assert.equal(tunnels[0]!.target, simHostPort());
  await client({ proxy: null }).listInstances();
  assert.equal(tunnels.length, 1, 'the built-in simulator is always reached directly');
  await closeApiTransport();
  process.env.NO_PROXY = 'localhost,127.0.0.1';
  await client().listInstances();
  assert.equal(tunnels.length, 1, 'NO_PROXY bypasses');
  // http.proxy wins over the environment
  delete process.env.NO_PROXY;
  process.env.HTTP_PROXY = 'http://127.0.0.1:9';
  await client({ proxy: { url: proxyUrl } }).listInstances();
  assert.equal(tunnels.length, 2);
});

test('proxy credentials reach the proxy only; a 407 is a clear error that never shows them, and a creation is not ambiguous', async () => {
  requiredAuth = 'alice:pr0xy-s3cret';
  const good = client({ proxy: { url: 'http://alice:pr0xy-s3cret@' + proxyUrl.slice('http://'.length) } });
  await good.listInstances();
  assert.equal(tunnels[0]!.auth, `Basic ${Buffer.from('alice:pr0xy-s3cret').toString('base64')}`);

  await closeApiTransport();
  const bad = client({ proxy: { url: 'http://alice:wrong-pass@' + proxyUrl.slice('http://'.length) } });
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
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { createServer: createHttps } = await import('node:https');
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-proxy-tls-'));
  try {
    if (!requireTools(t, 'openssl')) return;
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    } catch (e) {
      assert.fail(`openssl could not make a self-signed certificate: ${(e as Error).message}`);
    }
    const tls = createHttps({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      const body = JSON.stringify({ id: 1, email: 'tls@example.com', credit: 1 });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const base = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    try {
      const strict = client({ baseUrl: base, proxy: { url: proxyUrl } });
      const e = await rejection(strict.currentUser());
      assert.equal(e.kind, 'network');
      assert.match(e.message, /CERT|certificate|SELF_SIGNED/i);
      assert.equal(tunnels.length, 1, 'it went through the proxy');
      await closeApiTransport();
      const lax = client({ baseUrl: base, proxy: { url: proxyUrl, strictSSL: false } });
      assert.equal((await lax.currentUser()).email, 'tls@example.com');
      assert.equal(tunnels.length, 2);
      // not behind the proxy (noProxy), the setting does not apply: certificates are checked
      await closeApiTransport();
      const direct = client({ baseUrl: base, proxy: { url: proxyUrl, strictSSL: false, noProxy: ['127.0.0.1'] } });
      assert.equal((await rejection(direct.currentUser())).kind, 'network');
    } finally {
      await closeApiTransport();
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
