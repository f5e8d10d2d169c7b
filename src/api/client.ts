// The HTTP client: one method per endpoint of the spec. Validates requests before sending,
// parses responses tolerantly, retries only safe requests, and never logs bodies or secrets.
import type * as z from 'zod/mini';
import type {
  CallOptions,
  Credentials,
  Logger,
  ServiceApi,
  OfferQuery,
  CreateInstanceRequest,
  Instance,
  InstanceFilter,
  InstanceList,
  TfaSmsRequest,
  TfaSendResult,
  LogFetchOptions,
  ConfirmNewMethodRequest,
  ConfirmNewMethodResult,
} from './types';
import type { ProxySettings, Transport, TransportRequest, TransportResponse } from './transport';
import { ApiError, errorFromResponse, isApiError, parseErrorBody } from './errors';
import { NOT_VISIBLE_WINDOW_MS } from './visibility';
import { mayCarryKey } from './loopback';

/** The key is never sent in clear off this computer: http:// is for loopback only. */
function insecureUrl(baseUrl: string, method: string, path: string): ApiError {
  let host = 'that address';
  try {
    host = new URL(baseUrl).host;
  } catch {
    // keep the generic name
  }
  return new ApiError({ kind: 'invalid_request', code: 'insecure_url', msg: host, method, path, message: `${method} ${path}: not sent: the API key would travel in clear text to ${host}` });
}
import { NO_PACING_MS, Pacer, SERVICE_PACING_MS, type PacedEndpoint, type PacingMs } from './pacing';
import { LIST_COLUMNS, V1_PAGE_LIMIT, v1ListPath } from './listing';
import { SecretRegistry, createRedactingLogger } from './redact';
import { redactLog, resultUrlProblem } from './logs';
import type * as Schemas from './schemas';

// The response schemas (and zod) load with the first request, not at activation: building
// them is most of what requiring the activation bundle would otherwise cost.
let schemasModule: Promise<typeof Schemas> | undefined;
const loadSchemas = (): Promise<typeof Schemas> => (schemasModule ??= import('./schemas'));

export interface RetryOptions {
  /** Extra attempts after the first (safe requests only). */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ApiClientOptions {
  /** Default 'https://console.vast.ai'. */
  baseUrl?: string;
  credentials: Credentials;
  log: Logger;
  /** Per-attempt timeout, default 30000 ms. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  userAgent?: string;
  /** Injected transport (tests); by default undici, loaded on the first request. */
  transport?: Transport;
  /** Jitter source, default Math.random (tests make backoff deterministic). */
  random?: () => number;
  /**
   * VS Code's proxy settings; undefined: HTTPS_PROXY/HTTP_PROXY/NO_PROXY from the environment;
   * null: always direct (the built-in simulator on loopback).
   */
  proxy?: ProxySettings | null;
  /**
   * Minimum time between two calls of each rate-limited endpoint: 'service' (default: the pages
   * of a list walk and status polls at the live service's thresholds, every endpoint held back
   * by its threshold after a 429), 'off', or milliseconds per endpoint (the rest as 'service').
   */
  pacing?: 'service' | 'off' | Partial<PacingMs>;
}

/**
 * Which instance list each base URL speaks, learnt once per session: 'v0' only after the
 * server showed it does not know v1 (a plain 404), 'v1' after v0 answered deprecated_endpoint.
 */
const listEraByBase = new Map<string, 'v1' | 'v0'>();

/** Tests: forget what was learnt (a new session). */
export function forgetListEras(): void {
  listEraByBase.clear();
}

/** For tests and diagnostics: what the client learnt about a base URL's instance list. */
export function learntListEra(baseUrl: string): 'v1' | 'v0' | undefined {
  return listEraByBase.get(baseUrl.replace(/\/+$/, ''));
}

function pacingOf(p: ApiClientOptions['pacing']): PacingMs {
  if (p === 'off') return { ...NO_PACING_MS };
  if (p === undefined || p === 'service') return { ...SERVICE_PACING_MS };
  return { ...SERVICE_PACING_MS, ...p };
}

import { DEFAULT_BASE_URL } from './defaults';
export { DEFAULT_BASE_URL };
export { V1_PAGE_LIMIT };
const DEFAULT_RETRY: RetryOptions = { retries: 4, baseDelayMs: 500, maxDelayMs: 8000 };
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

let defaultTransport: Promise<Transport> | undefined;

/** The undici transport, imported on first use (a separate bundle, dist/transport.js). */
function loadTransport(): Promise<Transport> {
  defaultTransport ??= import('./transport').then(
    (ns) => {
      // Loaded as CommonJS through import(), the exports may sit under `default` only.
      const m = (typeof ns.request === 'function' ? ns : (ns as { default?: typeof ns }).default) ?? ns;
      return { request: m.request, close: m.close };
    },
    (e: unknown) => {
      defaultTransport = undefined;
      throw e;
    },
  );
  return defaultTransport;
}

/** Closes the shared keep-alive connections (extension deactivation, end of tests). */
export async function closeApiTransport(): Promise<void> {
  if (!defaultTransport) return;
  const t = await defaultTransport.catch(() => undefined);
  await t?.close?.();
}

interface TransportFailure {
  name: 'TransportError';
  kind: 'network' | 'timeout' | 'aborted' | 'too_large';
  sent: boolean;
  message: string;
}
function isTransportFailure(e: unknown): e is TransportFailure {
  return !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'TransportError';
}

interface Endpoint<T> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  schema: (s: typeof Schemas) => z.ZodMiniType<T>;
  /** Instance creation: never retried, ambiguous failures reported as such. */
  creation?: boolean;
  /** An empty 2xx body counts as `{}` (simple success answers). */
  emptyOk?: boolean;
  /** The rate-limited endpoint this call counts against (paced, and 429s wait a whole interval). */
  pace?: PacedEndpoint;
  /** A POST that only reads (offer search): retried like a GET. */
  idempotent?: boolean;
  /** A list call the caller switches eras on (410 deprecated_endpoint, plain 404): not logged as a failure. */
  eraSwitch?: boolean;
}

function abortError(method: string, path: string): ApiError {
  return new ApiError({ kind: 'aborted', method, path, message: `${method} ${path} was cancelled` });
}

function sleep(ms: number, signal: AbortSignal | undefined, onAbort: () => ApiError): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(onAbort());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(t);
      reject(onAbort());
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function invalid(endpoint: string, problems: string[]): ApiError {
  return new ApiError({
    kind: 'invalid_request',
    problems,
    message: `${endpoint}: request not sent: ${problems.join('; ')}`,
  });
}

function positiveId(id: number, what: string): void {
  if (!Number.isInteger(id) || id <= 0) throw invalid(what, [`id: must be a positive whole number, got ${String(id)}`]);
}

export function createApiClient(opts: ApiClientOptions): ServiceApi {
  const baseUrl = (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...opts.retry };
  const defaultTimeout = opts.timeoutMs ?? 30_000;
  const random = opts.random ?? Math.random;
  const userAgent = opts.userAgent ?? 'gpu-rental-vscode';
  const secrets = new SecretRegistry();
  const knownSecrets = () => [opts.credentials.token(), ...secrets.list()];
  const log = createRedactingLogger(opts.log, knownSecrets);
  const transport = (): Promise<Transport> => (opts.transport ? Promise.resolve(opts.transport) : loadTransport());
  const pacing = pacingOf(opts.pacing);
  const pacer = new Pacer(
    pacing,
    {
      now: () => Date.now(),
      sleep: (ms, signal) => sleep(ms, signal, () => new ApiError({ kind: 'aborted', message: 'The request was cancelled while waiting for its turn' })),
    },
    // 'off' (tests against a simulator without limits): no waits at all.
    opts.pacing === 'off' ? NO_PACING_MS : undefined,
  );
  /** Instances this client created, with when: a 404/null for them within a minute is "not visible yet". */
  const createdHere = new Map<number, number>();

  async function validate(endpoint: string, schema: (s: typeof Schemas) => z.ZodMiniType, body: unknown): Promise<void> {
    const s = await loadSchemas();
    const problems = s.validateWith(schema(s), body);
    if (problems.length) throw invalid(endpoint, problems);
  }

  /** Remembers secret values of a request so no later log line can show them. */
  function noteRequestSecrets(body: unknown): void {
    if (!body || typeof body !== 'object') return;
    const b = body as Record<string, unknown>;
    for (const k of ['code', 'secret', 'backup_code', 'image_login']) if (typeof b[k] === 'string') secrets.add(b[k] as string);
    // Registry flags such as "-u user -p PASSWORD host": each part on its own, as a server may echo one.
    if (typeof b.image_login === 'string') secrets.add(...b.image_login.split(/\s+/).filter((t) => !t.startsWith('-')));
  }

  function noteInstanceSecrets(i: Instance): void {
    secrets.add(i.jupyter_token);
  }

  async function send<T>(ep: Endpoint<T>, o: CallOptions | undefined): Promise<T> {
    const s = await loadSchemas();
    const { method, path } = ep;
    const signal = o?.signal;
    const timeoutMs = o?.timeoutMs ?? defaultTimeout;
    const safe = (method === 'GET' || ep.idempotent === true) && !ep.creation;
    const wire = ep.body === undefined ? undefined : JSON.stringify(s.stripNulls(ep.body));
    noteRequestSecrets(ep.body);

    let authRetried = false;
    for (let attempt = 0; ; attempt++) {
      try {
        if (signal?.aborted) throw abortError(method, path);
        const token = opts.credentials.token();
        if (!token)
          throw new ApiError({ kind: 'auth', method, path, message: `${method} ${path}: not signed in (no API key)` });
        if (!mayCarryKey(baseUrl)) throw insecureUrl(baseUrl, method, path);
        const t = await transport();
        if (ep.pace) await pacer.take(ep.pace, signal);
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': userAgent,
        };
        if (wire !== undefined) headers['content-type'] = 'application/json';
        const req: TransportRequest = { baseUrl, method, path, headers, timeoutMs, proxy: opts.proxy, ...(wire !== undefined ? { body: wire } : {}), ...(signal ? { signal } : {}) };
        const started = Date.now();
        let res: TransportResponse;
        try {
          res = await t.request(req);
        } catch (e) {
          throw transportToApiError(e, ep, timeoutMs);
        }
        const ms = Date.now() - started;
        log.debug(`${method} ${path} -> ${res.status} (${ms} ms)`);

        if (res.status >= 200 && res.status < 300) return parse(ep, res, s);

        const err = httpError(ep, res);
        if (err.kind === 'rate_limited' && ep.pace) pacer.penalize(ep.pace);
        if (err.kind === 'auth' && !authRetried) {
          authRetried = true;
          // Another request in flight may already have switched the credentials (an expired 2FA
          // session seen by two requests at once): then this one is resent with the new token too.
          const now = opts.credentials.token();
          const switched = now !== undefined && now !== token ? true : ((await opts.credentials.onAuthFailure?.()) ?? false);
          if (switched) {
            log.info(`${method} ${path}: credentials were rejected; sending once more with the fallback credentials`);
            attempt--; // the auth resend does not use up a retry
            continue;
          }
        }
        throw err;
      } catch (e) {
        const err = isApiError(e) ? e : new ApiError({ kind: 'network', method, path, message: `${method} ${path} failed: ${e instanceof Error ? e.message : String(e)}` });
        if (!safe || attempt >= retry.retries || !retryable(err) || signal?.aborted) {
          const switching = ep.eraSwitch && err.kind === 'http' && ((err.status === 410 && err.code === 'deprecated_endpoint') || (err.status === 404 && !err.jsonBody));
          if (err.kind !== 'aborted' && err.kind !== 'invalid_request' && !switching) log.warn(`${method} ${path} failed: ${err.kind}${err.status ? ` ${err.status}` : ''}${err.code ? ` ${err.code}` : ''}`);
          throw err;
        }
        const cap = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
        const delay = Math.floor(random() * cap); // full jitter
        log.info(`${method} ${path}: ${err.kind}${err.status ? ` ${err.status}` : ''}, retry ${attempt + 1}/${retry.retries} in ${delay} ms`);
        await sleep(delay, signal, () => abortError(method, path));
      }
    }
  }

  function retryable(e: ApiError): boolean {
    if (e.kind === 'network') return true;
    return e.status !== undefined && RETRY_STATUSES.has(e.status);
  }

  function transportToApiError(e: unknown, ep: Endpoint<unknown>, timeoutMs: number): ApiError {
    const { method, path } = ep;
    if (!isTransportFailure(e))
      return new ApiError({ kind: 'network', method, path, message: `${method} ${path}: the HTTP component failed (${e instanceof Error ? e.message : String(e)}); reinstall the extension if this persists` });
    if (ep.creation && e.sent)
      return new ApiError({
        kind: 'ambiguous',
        cause: e.kind,
        method,
        path,
        message: `${method} ${path}: the outcome is unknown (${e.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : e.kind === 'aborted' ? 'cancelled after sending' : e.message}); the instance may have been created, so the instance list will be checked before anything else`,
      });
    if (e.kind === 'aborted') return abortError(method, path);
    if (e.kind === 'too_large') return new ApiError({ kind: 'too_large', method, path, message: `${method} ${path}: ${e.message}` });
    if (e.kind === 'timeout')
      return new ApiError({ kind: 'timeout', method, path, message: `${method} ${path}: no answer within ${timeoutMs} ms` });
    return new ApiError({ kind: 'network', method, path, message: `${method} ${path}: ${e.message}` });
  }

  function httpError(ep: Endpoint<unknown>, res: TransportResponse): ApiError {
    const { method, path } = ep;
    const retryAfter = Number(res.headers['retry-after']);
    const err = errorFromResponse(method, path, res.status, res.text, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined, knownSecrets());
    // A 5xx without a structured error body does not prove the service rejected the creation.
    if (ep.creation && res.status >= 500 && !parseErrorBody(res.text).structured)
      return new ApiError({
        kind: 'ambiguous',
        cause: 'http',
        status: res.status,
        method,
        path,
        message: `${method} ${path}: HTTP ${res.status} without an explanation, so the outcome is unknown; the instance list will be checked before anything else`,
      });
    return err;
  }

  function parse<T>(ep: Endpoint<T>, res: TransportResponse, s: typeof Schemas): T {
    const { method, path } = ep;
    // A creation answer that cannot be read does not say whether a machine was rented: it is
    // ambiguous like a timeout, and the caller reconciles through the instance list.
    const malformed = (why: string) =>
      ep.creation
        ? new ApiError({ kind: 'ambiguous', cause: 'malformed', status: res.status, method, path, message: `${method} ${path}: the answer could not be read (${why}), so the outcome is unknown; the instance list will be checked before anything else` })
        : new ApiError({ kind: 'malformed', status: res.status, method, path, message: `${method} ${path}: unexpected answer from the service (${why})` });
    const ct = (res.headers['content-type'] ?? '').toLowerCase();
    const text = res.text.trim();
    let json: unknown;
    if (text === '' && ep.emptyOk) json = {};
    else {
      if (ct && !/^application\/([\w.-]+\+)?json\b/.test(ct)) throw malformed(`content type ${ct.split(';')[0]} instead of JSON`);
      try {
        json = JSON.parse(text);
      } catch {
        throw malformed('the body is not JSON');
      }
    }
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const j = json as Record<string, unknown>;
      if (j.success === false && (typeof j.error === 'string' || typeof j.msg === 'string' || typeof j.message === 'string'))
        throw errorFromResponse(method, path, res.status, text, undefined, knownSecrets());
    }
    const r = s.safeParse(ep.schema(s), json);
    if (!r.success) {
      const fields = [...new Set(r.error.issues.map((i) => i.path.map(String).join('.') || '(root)'))].slice(0, 5);
      throw malformed(`fields ${fields.join(', ')} do not match`);
    }
    return r.data;
  }

  /** The SMS send/resend endpoints (current and deprecated paths) share body and answer. */
  async function sendCode(name: string, path: string, req: TfaSmsRequest, o: CallOptions | undefined): Promise<TfaSendResult> {
    await validate(name, (s) => s.tfaSmsRequestSchema, req);
    const r = await send({ method: 'POST', path, body: req, schema: (s) => s.tfaSendResultSchema }, o);
    secrets.add(r.secret);
    return r;
  }

  /** confirm-new and its deprecated twin test-submit. */
  async function confirmNew(name: string, path: string, req: ConfirmNewMethodRequest, o: CallOptions | undefined): Promise<ConfirmNewMethodResult> {
    await validate(name, (s) => s.confirmNewRequestSchema, req);
    const r = await send({ method: 'POST', path, body: req, schema: (s) => s.confirmNewResultSchema }, o);
    secrets.add(...(r.backup_codes ?? []));
    return r;
  }

  /** The uploaded log: a plain GET, never with the API key (the address is the service's storage). */
  async function fetchLogs(resultUrl: string, o: LogFetchOptions | undefined): Promise<string> {
    const problem = resultUrlProblem(resultUrl);
    if (problem) throw new ApiError({ kind: 'malformed', method: 'GET', path: 'result_url', message: `Could not fetch the log: ${problem}.` });
    const u = new URL(resultUrl);
    const where = `${u.origin}${u.pathname}`; // the query may carry a signature: never logged
    const attempts = Math.max(1, Math.floor(o?.attempts ?? 30));
    const interval = Math.max(0, o?.intervalMs ?? 300);
    const pause = o?.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, signal, () => abortError('GET', where)));
    const t = await transport();
    let last = '';
    for (let i = 1; i <= attempts; i++) {
      if (o?.signal?.aborted) throw abortError('GET', where);
      let res: TransportResponse | undefined;
      try {
        res = await t.request({
          baseUrl: u.origin,
          method: 'GET',
          path: u.pathname + u.search,
          headers: { accept: 'text/plain, */*', 'user-agent': userAgent },
          timeoutMs: o?.timeoutMs ?? defaultTimeout,
          proxy: opts.proxy,
          ...(o?.signal ? { signal: o.signal } : {}),
        });
      } catch (e) {
        const f = isTransportFailure(e) ? e : undefined;
        if (f?.kind === 'aborted' || o?.signal?.aborted) throw abortError('GET', where);
        // a log too large to read stays too large: no point asking again
        if (f?.kind === 'too_large') throw new ApiError({ kind: 'too_large', method: 'GET', path: where, message: `The log could not be read: ${f.message}. Ask for fewer lines (tail) or a filter.` });
        last = f ? f.message : String(e);
      }
      if (res) {
        log.debug(`GET ${where} -> ${res.status} (log upload, attempt ${i}/${attempts})`);
        if (res.status >= 200 && res.status < 300) return redactLog(res.text, knownSecrets());
        // 404 (or a bucket's 403) until the upload lands; 5xx may pass
        if (res.status !== 404 && res.status !== 403 && res.status < 500) {
          throw new ApiError({ kind: 'http', status: res.status, method: 'GET', path: where, message: `GET ${where}: HTTP ${res.status} while fetching the log` });
        }
        last = `HTTP ${res.status}`;
      }
      if (i < attempts) await pause(interval, o?.signal);
    }
    throw new ApiError({
      kind: 'timeout',
      method: 'GET',
      path: where,
      message: `The log was not uploaded after ${attempts} tries over about ${Math.round((attempts * interval) / 1000)} s (last answer: ${last}). Try Refresh in a moment.`,
    });
  }

  /**
   * Runs the list call of the era this base URL speaks. v1 first; the v0 list only after a
   * plain 404 (the server has no v1; a 4xx with a JSON error body is a real answer). A 410
   * deprecated_endpoint on either switches to the other and retries once.
   */
  async function listWith(base: string, how: { v1(): Promise<InstanceList>; v0(): Promise<InstanceList> }): Promise<InstanceList> {
    const era = listEraByBase.get(base) ?? 'v1';
    try {
      return await how[era]();
    } catch (e) {
      if (!isApiError(e) || e.kind !== 'http') throw e;
      const deprecated = e.status === 410 && e.code === 'deprecated_endpoint';
      const noV1 = era === 'v1' && e.status === 404 && !e.jsonBody;
      if (!deprecated && !noV1) throw e;
      const other = era === 'v1' ? 'v0' : 'v1';
      log.info(`instance list: ${noV1 ? 'the server has no /api/v1/instances/' : `${e.path ?? ''} is deprecated`}; using the ${other} list from now on`);
      listEraByBase.set(base, other);
      return how[other]();
    }
  }

  async function listV0(o: CallOptions | undefined): Promise<InstanceList> {
    const r = await send({ method: 'GET', path: I, schema: (s) => s.instanceListSchema, eraSwitch: true }, o);
    listEraByBase.set(baseUrl, 'v0');
    return { ...r, source: 'v0', requests: 1 };
  }

  /**
   * Walks the v1 list: pages of 25 ordered by id (a keyset order, so rows never shift between
   * pages), following next_token until it is empty, paced by the list threshold. A row seen
   * twice (moved while walking) counts once, with its latest read.
   */
  async function walkV1(cols: readonly string[] | undefined, filters: Record<string, unknown> | undefined, o: CallOptions | undefined, maxPages = Infinity): Promise<InstanceList> {
    const byId = new Map<number, Instance>();
    const tokens = new Set<string>();
    let token: string | undefined;
    let requests = 0;
    let total: number | undefined;
    for (;;) {
      const path = v1ListPath({ cols, filters, after: token });
      const page = await send({ method: 'GET', path, schema: (s) => s.instancePageSchema, pace: 'list', eraSwitch: requests === 0 }, o);
      requests++;
      if (requests === 1) listEraByBase.set(baseUrl, 'v1');
      total ??= page.total_instances;
      for (const i of page.instances) byId.set(i.id, i);
      token = page.next_token;
      if (!token || requests >= maxPages) break;
      if (tokens.has(token) || page.instances.length === 0)
        throw new ApiError({ kind: 'malformed', method: 'GET', path: '/api/v1/instances/', message: 'GET /api/v1/instances/: the service handed out the same page twice (next_token repeats); the walk was stopped' });
      tokens.add(token);
    }
    const instances = [...byId.values()].sort((a, b) => a.id - b.id);
    return { instances_found: instances.length, instances, source: 'v1', requests, ...(total !== undefined ? { total_instances: total } : {}) };
  }

  function findFilters(f: InstanceFilter): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (f.label !== undefined) {
      if (typeof f.label !== 'string' || f.label === '') throw invalid('findInstances', ['label: must be a non-empty string']);
      out.label = { eq: f.label };
    }
    if (f.id !== undefined) {
      positiveId(f.id, 'findInstances');
      out.id = { eq: f.id };
    }
    if (!Object.keys(out).length) throw invalid('findInstances', ['give a label or an id to look for']);
    return out;
  }

  function matchesFilter(i: Instance, f: InstanceFilter): boolean {
    return (f.label === undefined || i.label === f.label) && (f.id === undefined || i.id === f.id);
  }

  const I = '/api/v0/instances/';
  const K = '/api/v0/ssh/';

  /** The key calls: one OpenSSH public key line (a .pub file's text, trimmed) checked, then sent as ssh_key. */
  async function sendKey<T>(name: string, method: 'POST' | 'PUT', path: string, key: unknown, extra: object, schema: (s: typeof Schemas) => z.ZodMiniType<T>, o: CallOptions | undefined): Promise<T> {
    const body = { ...extra, ssh_key: typeof key === 'string' ? key.trim() : key };
    await validate(name, (s) => s.sshKeyRequestSchema, body);
    return send({ method, path, body, schema, emptyOk: true }, o);
  }
  const T = '/api/v0/tfa/';

  const api: ServiceApi = {
    async listInstances(o) {
      const all = o?.columns === 'all';
      const r = await listWith(baseUrl, {
        v1: async () => walkV1(all ? undefined : LIST_COLUMNS, undefined, o),
        v0: async () => listV0(o),
      });
      r.instances.forEach(noteInstanceSecrets);
      return r;
    },
    async findInstances(filter, o) {
      const filters = findFilters(filter);
      const r = await listWith(baseUrl, {
        // One filtered request: a label or id matches at most a handful of instances.
        v1: async () => walkV1(undefined, filters, o, 1),
        v0: async () => {
          const l = await listV0(o);
          return { ...l, instances: l.instances.filter((i) => matchesFilter(i, filter)) };
        },
      });
      r.instances.forEach(noteInstanceSecrets);
      return r.instances;
    },
    async showInstance(id, o) {
      positiveId(id, 'showInstance');
      const path = `${I}${id}/`;
      const createdAt = o?.createdAtMs ?? createdHere.get(id);
      const recent = createdAt !== undefined && Date.now() - createdAt < NOT_VISIBLE_WINDOW_MS;
      const notVisible = () =>
        new ApiError({
          kind: 'not_visible_yet',
          status: 404,
          code: 'not_visible_yet',
          method: 'GET',
          path,
          message: `GET ${path}: instance ${id} was created ${Math.round((Date.now() - createdAt!) / 1000)} s ago and is not visible yet`,
        });
      const gone = () =>
        new ApiError({ kind: 'http', status: 404, code: 'no_such_instance', method: 'GET', path, message: `GET ${path}: instance ${id} does not exist` });
      let r: Instance | null;
      try {
        r = await send({ method: 'GET', path, schema: (s) => s.showInstanceSchema, pace: 'show' }, o);
      } catch (e) {
        if (isApiError(e) && e.kind === 'http' && e.status === 410 && e.code === 'deprecated_endpoint') {
          // Never shown as a failure: read the one record through the list instead, once.
          log.info(`GET ${path}: deprecated_endpoint; reading instance ${id} through the instance list`);
          r = (await api.findInstances({ id }, o))[0] ?? null;
        } else if (recent && isApiError(e) && e.kind === 'http' && e.status === 404) throw notVisible();
        else throw e;
      }
      if (r === null) {
        // {"instances": null} (or the seed's empty object): gone, unless it is new.
        if (recent) throw notVisible();
        throw gone();
      }
      createdHere.delete(id);
      noteInstanceSecrets(r);
      return r;
    },
    async setInstanceState(id, state, o) {
      positiveId(id, 'setInstanceState');
      if (state !== 'running' && state !== 'stopped') throw invalid('setInstanceState', ["state: must be 'running' or 'stopped'"]);
      return send({ method: 'PUT', path: `${I}${id}/`, body: { state }, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'update' }, o);
    },
    async setInstanceLabel(id, label, o) {
      positiveId(id, 'setInstanceLabel');
      if (typeof label !== 'string') throw invalid('setInstanceLabel', ['label: must be a string']);
      return send({ method: 'PUT', path: `${I}${id}/`, body: { label }, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'update' }, o);
    },
    async destroyInstance(id, o) {
      positiveId(id, 'destroyInstance');
      return send({ method: 'DELETE', path: `${I}${id}/`, schema: (s) => s.simpleResultSchema, emptyOk: true, pace: 'destroy' }, o);
    },
    async searchOffers(q: OfferQuery, o) {
      const s = await loadSchemas();
      const problems = s.validateOfferQuery(q);
      if (problems.length) throw invalid('searchOffers', problems);
      return send({ method: 'POST', path: '/api/v0/bundles/', body: s.offerQueryToWire(q), schema: (s) => s.offerListSchema, pace: 'search', idempotent: true }, o);
    },
    async createInstance(offerId: number, req: CreateInstanceRequest, o) {
      positiveId(offerId, 'createInstance');
      secrets.add(...(o?.secrets ?? []));
      noteRequestSecrets(req);
      const interruptible = o?.interruptible ?? (req.price !== undefined && req.price !== null);
      const s = await loadSchemas();
      const problems = s.validateCreateRequest(req, { interruptible });
      if (problems.length) throw invalid('createInstance', problems);
      const r = await send({ method: 'PUT', path: `/api/v0/asks/${offerId}/`, body: req, schema: (s) => s.createResultSchema, creation: true, pace: 'create' }, o);
      secrets.add(r.instance_api_key);
      createdHere.set(r.new_contract, Date.now());
      return r;
    },
    async currentUser(o) {
      return send({ method: 'GET', path: '/api/v0/users/current/', schema: (s) => s.userSchema }, o);
    },

    async requestLogs(id, req = {}, o) {
      positiveId(id, 'requestLogs');
      const problems: string[] = [];
      if (req.tail !== undefined && !(Number.isInteger(req.tail) && req.tail > 0 && req.tail <= 100_000)) problems.push('tail: must be a whole number of lines from 1 to 100000');
      if (req.filter !== undefined && typeof req.filter !== 'string') problems.push('filter: must be text');
      if (problems.length) throw invalid('requestLogs', problems);
      // The service takes every value as a string, as the official CLI sends them.
      const body: Record<string, string> = {};
      if (req.tail !== undefined) body.tail = String(req.tail);
      if (req.filter) body.filter = req.filter;
      if (req.daemonLogs) body.daemon_logs = 'true';
      return send({ method: 'PUT', path: `${I}request_logs/${id}/`, body, schema: (s) => s.logRequestResultSchema }, o);
    },
    fetchLogs: (url, o) => fetchLogs(url, o),
    async rebootInstance(id, o) {
      positiveId(id, 'rebootInstance');
      return send({ method: 'PUT', path: `${I}reboot/${id}/`, body: {}, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async recycleInstance(id, o) {
      positiveId(id, 'recycleInstance');
      return send({ method: 'PUT', path: `${I}recycle/${id}/`, body: {}, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async changeBid(id, price, o) {
      positiveId(id, 'changeBid');
      if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price > 1000)
        throw invalid('changeBid', [`price: must be dollars per hour above 0 (at most 1000), got ${String(price)}`]);
      return send({ method: 'PUT', path: `${I}bid_price/${id}/`, body: { client_id: 'me', price }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async searchTemplates(q = {}, o) {
      const params = new URLSearchParams();
      params.set('select_filters', JSON.stringify(q.filters ?? {}));
      params.set('select_cols', JSON.stringify(q.cols?.length ? q.cols : ['*']));
      if (q.orderBy) {
        if (!/^[-+]?[a-z_]+$/.test(q.orderBy)) throw invalid('searchTemplates', [`orderBy: must be a column name, got ${q.orderBy}`]);
        params.set('order_by', q.orderBy);
      }
      return send({ method: 'GET', path: `/api/v0/template/?${params.toString()}`, schema: (s) => s.templateListSchema }, o);
    },
    async listSshKeys(o) {
      return send({ method: 'GET', path: K, schema: (s) => s.accountSshKeyListSchema }, o);
    },
    addSshKey: (publicKey, o) => sendKey('addSshKey', 'POST', K, publicKey, {}, (s) => s.accountSshKeyResultSchema, o),
    async updateSshKey(id, publicKey, o) {
      positiveId(id, 'updateSshKey');
      return sendKey('updateSshKey', 'PUT', `${K}${id}/`, publicKey, { id }, (s) => s.accountSshKeyResultSchema, o);
    },
    async deleteSshKey(id, o) {
      positiveId(id, 'deleteSshKey');
      return send({ method: 'DELETE', path: `${K}${id}/`, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async attachSshKey(instanceId, publicKey, o) {
      positiveId(instanceId, 'attachSshKey');
      return sendKey('attachSshKey', 'POST', `${I}${instanceId}/ssh/`, publicKey, {}, (s) => s.simpleResultSchema, o);
    },
    async listInstanceSshKeys(instanceId, o) {
      positiveId(instanceId, 'listInstanceSshKeys');
      return send({ method: 'GET', path: `${I}${instanceId}/ssh/`, schema: (s) => s.instanceSshKeyListSchema }, o);
    },
    async detachSshKey(instanceId, keyId, o) {
      positiveId(instanceId, 'detachSshKey');
      positiveId(keyId, 'detachSshKey');
      return send({ method: 'DELETE', path: `${I}${instanceId}/ssh/${keyId}/`, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },

    async tfaStatus(o) {
      return send({ method: 'GET', path: `${T}status/`, schema: (s) => s.tfaStatusSchema }, o);
    },
    async tfaLogin(req, o) {
      await validate('tfaLogin', (s) => s.tfaLoginRequestSchema, req);
      const r = await send({ method: 'POST', path: T, body: req, schema: (s) => s.tfaLoginResultSchema }, o);
      secrets.add(r.session_key);
      return r;
    },
    async tfaRemove(req, o) {
      await validate('tfaRemove', (s) => s.tfaRemoveRequestSchema, req);
      return send({ method: 'DELETE', path: T, body: req, schema: (s) => s.tfaRemoveResultSchema }, o);
    },
    async tfaSendEmail(req, o) {
      await validate('tfaSendEmail', (s) => s.tfaEmailRequestSchema, req ?? {});
      const r = await send({ method: 'POST', path: `${T}email/`, body: req ?? {}, schema: (s) => s.tfaSendResultSchema }, o);
      secrets.add(r.secret);
      return r;
    },
    // Arrow members below delegate to async helpers, so validation errors also arrive as rejections.
    tfaSendSms: (req, o) => sendCode('tfaSendSms', `${T}sms/`, req, o),
    tfaResendSms: (req, o) => sendCode('tfaResendSms', `${T}sms/resend/`, req, o),
    async tfaTotpSetup(o) {
      const r = await send({ method: 'POST', path: `${T}totp-setup/`, schema: (s) => s.totpSetupSchema }, o);
      secrets.add(r.secret, r.provisioning_uri);
      return r;
    },
    async tfaAuthorizeNewMethod(req, o) {
      await validate('tfaAuthorizeNewMethod', (s) => s.authorizeNewMethodRequestSchema, req);
      const r = await send({ method: 'POST', path: `${T}authorize-new-method/`, body: req, schema: (s) => s.authorizeNewMethodResultSchema }, o);
      secrets.add(r.secret);
      return r;
    },
    async tfaAuthorizeNewMethodConfirm(req, o) {
      await validate('tfaAuthorizeNewMethodConfirm', (s) => s.authorizeConfirmRequestSchema, req);
      return send({ method: 'PUT', path: `${T}authorize-new-method/`, body: req, schema: (s) => s.simpleResultSchema }, o);
    },
    tfaConfirmNew: (req, o) => confirmNew('tfaConfirmNew', `${T}confirm-new/`, req, o),
    async tfaUpdate(req, o) {
      await validate('tfaUpdate', (s) => s.tfaUpdateRequestSchema, req);
      return send({ method: 'PUT', path: `${T}update/`, body: req, schema: (s) => s.tfaUpdateResultSchema }, o);
    },
    async tfaRegenBackupCodes(req, o) {
      await validate('tfaRegenBackupCodes', (s) => s.tfaVerificationSchema, req);
      const r = await send({ method: 'PUT', path: `${T}regen-backup-codes/`, body: req, schema: (s) => s.regenBackupCodesSchema }, o);
      secrets.add(...r.backup_codes);
      return r;
    },
    tfaTestDeprecated: (req, o) => sendCode('tfaTestDeprecated', `${T}test/`, req, o),
    tfaTestSubmitDeprecated: (req, o) => confirmNew('tfaTestSubmitDeprecated', `${T}test-submit/`, req, o),
    tfaResendDeprecated: (req, o) => sendCode('tfaResendDeprecated', `${T}resend/`, req, o),
  };
  return api;
}
