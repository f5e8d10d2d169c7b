// The only file that imports undici. Built as its own bundle (dist/transport.js) and loaded
// on the first request, so activation does not pay for the HTTP stack.
import { EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';
import { isLoopbackHost } from './loopback';

/**
 * How to reach the service: VS Code's `http.proxy`, `http.proxyStrictSSL` and `http.noProxy`.
 * Without a `url`, the standard HTTPS_PROXY / HTTP_PROXY / NO_PROXY variables apply.
 */
export interface ProxySettings {
  /** e.g. http://proxy.corp:3128 or http://user:pass@proxy:3128; credentials are never logged. */
  url?: string;
  /** false: do not verify certificates behind the proxy (VS Code's http.proxyStrictSSL). Default true. */
  strictSSL?: boolean;
  /** Hosts (and host:port, .domain suffixes) reached directly. */
  noProxy?: string[];
}

export interface TransportRequest {
  baseUrl: string;
  method: string;
  /** Path plus query, starting with '/'. */
  path: string;
  body?: string;
  headers: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs: number;
  /** Largest answer body read, default MAX_BODY_BYTES; a larger one fails with kind 'too_large'. */
  maxBodyBytes?: number;
  /** undefined: the environment's proxy variables, if any; null: always direct (the local simulator). */
  proxy?: ProxySettings | null;
}

/** 8 MB: a list of 1,000 instances is well under 2 MB. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  close?(): Promise<void>;
}

/**
 * Thrown by the transport. Recognised by name (not instanceof) because this file lives in a
 * separate bundle. `sent` is false only when the request certainly never left (connection
 * refused, DNS, TLS or connect timeout); otherwise the server may have received it.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: 'network' | 'timeout' | 'aborted' | 'too_large',
    readonly sent: boolean,
    message: string,
    readonly errCode?: string,
  ) {
    super(message);
  }
}

/** Error codes that mean the request never reached the server. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UND_ERR_INVALID_ARG',
]);

const CONNECT_TIMEOUT_MS = 10_000;

/** How many connections, how long they are kept alive and the connect timeout: the same with or without a proxy. */
function connectionOptions() {
  return { connections: 8, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connect: { timeout: CONNECT_TIMEOUT_MS } };
}

const pools = new Map<string, Pool>();

function poolFor(origin: string): Pool {
  let p = pools.get(origin);
  if (!p) {
    p = new Pool(origin, connectionOptions());
    pools.set(origin, p);
  }
  return p;
}

const proxied = new Map<string, EnvHttpProxyAgent>();

function envProxy(): { http?: string; https?: string; no?: string } {
  const e = process.env;
  return { http: e.http_proxy || e.HTTP_PROXY || undefined, https: e.https_proxy || e.HTTPS_PROXY || undefined, no: e.no_proxy || e.NO_PROXY || undefined };
}

/**
 * undici's own proxy agent when a proxy is configured (VS Code setting first, then the
 * environment) and the origin is not this computer (src/api/loopback.ts), else the keep-alive
 * pool of the origin. One agent per distinct configuration.
 */
function dispatcherFor(origin: string, proxy: ProxySettings | null | undefined): Dispatcher {
  // This computer is reached directly, whatever the proxy settings say: a proxy would see the key in clear.
  if (proxy === null || isLoopbackHost(new URL(origin).hostname)) return poolFor(origin);
  const env = envProxy();
  const url = proxy?.url?.trim() || undefined;
  if (!url && !env.http && !env.https) return poolFor(origin);
  const noProxy = [...(proxy?.noProxy ?? []), ...(env.no ? [env.no] : [])].join(',');
  const strict = proxy?.strictSSL !== false;
  const key = JSON.stringify([url, env.http, env.https, noProxy, strict]);
  let agent = proxied.get(key);
  if (!agent) {
    agent = new EnvHttpProxyAgent({
      ...(url ? { httpProxy: url, httpsProxy: url } : { httpProxy: env.http ?? '', httpsProxy: env.https ?? env.http ?? '' }),
      noProxy,
      ...connectionOptions(),
      ...(strict ? {} : { requestTls: { rejectUnauthorized: false }, proxyTls: { rejectUnauthorized: false } }),
    });
    proxied.set(key, agent);
  }
  return agent;
}

function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * The body as text, refusing more than `max` bytes: by the declared Content-Length before
 * reading, and by counting while reading (a chunked or lying answer), so a huge answer never
 * sits in memory whole.
 */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  declared: string | string[] | undefined,
  max: number,
): Promise<string> {
  const tooLarge = (n: string) => {
    body.destroy();
    return new TransportError('too_large', true, `the answer is too large (${n}; the limit is ${max} bytes)`);
  };
  const len = Number(Array.isArray(declared) ? declared[0] : declared);
  if (Number.isFinite(len) && len > max) throw tooLarge(`${len} bytes announced`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > max) throw tooLarge(`more than ${max} bytes sent`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function request(req: TransportRequest): Promise<TransportResponse> {
  const url = new URL(req.baseUrl);
  // The last line of defence (the client refuses first, with its own message): no key in clear off this computer.
  if (req.headers.authorization !== undefined && url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw new TransportError('network', false, `refused to send the API key over plain ${url.protocol}// to ${url.hostname}: use an https URL`, 'INSECURE_URL');
  if (req.signal?.aborted) throw new TransportError('aborted', false, 'cancelled before sending');
  const base = url.pathname.replace(/\/+$/, '');
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, req.timeoutMs);
  const onAbort = () => ctl.abort();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await dispatcherFor(url.origin, req.proxy).request({
      origin: url.origin,
      path: base + req.path,
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body,
      signal: ctl.signal,
      // our own timer decides; these are backstops
      headersTimeout: req.timeoutMs + 1000,
      bodyTimeout: req.timeoutMs + 1000,
    });
    const text = await readCapped(res.body, res.headers['content-length'], req.maxBodyBytes ?? MAX_BODY_BYTES);
    return { status: res.statusCode, headers: flattenHeaders(res.headers), text };
  } catch (e) {
    if (e instanceof TransportError) throw e;
    const code = errorCode(e);
    // The proxy refused the tunnel (CONNECT answered e.g. 407): the service never saw the request.
    const refused = /^Proxy response \((\d{3})\)/.exec(e instanceof Error ? e.message : '');
    if (refused && !timedOut && !req.signal?.aborted) {
      const hint = refused[1] === '407' ? ': check the user and password in the http.proxy setting' : '';
      throw new TransportError('network', false, `the proxy refused the connection (HTTP ${refused[1]})${hint}`, 'PROXY_REFUSED');
    }
    if (code && NOT_SENT.has(code)) {
      throw new TransportError(code === 'UND_ERR_CONNECT_TIMEOUT' ? 'timeout' : 'network', false, `could not connect (${code})`, code);
    }
    if (timedOut) throw new TransportError('timeout', true, `no answer within ${req.timeoutMs} ms`, code);
    if (req.signal?.aborted) throw new TransportError('aborted', true, 'cancelled', code);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw new TransportError('timeout', true, `no answer in time (${code})`, code);
    // Reset, socket closed, half-written: the server may have received the request.
    throw new TransportError('network', true, `connection failed (${code ?? (e instanceof Error ? e.name : 'error')})`, code);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/** Closes every keep-alive pool (tests, deactivate). */
export async function close(): Promise<void> {
  const all: Dispatcher[] = [...pools.values(), ...proxied.values()];
  pools.clear();
  proxied.clear();
  await Promise.all(all.map((p) => p.destroy().catch(() => undefined)));
}
