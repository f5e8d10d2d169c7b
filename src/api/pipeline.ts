// The HTTP pipeline every endpoint module of the client sends through (client.ts composes them):
// builds the request with the auth header, paces rate-limited endpoints, retries only safe
// requests, parses the answer (answers.ts) and never logs bodies or secrets.
import { mayCarryKey } from './loopback';
import type * as z from 'zod/mini';
import type { CallOptions, Credentials, Logger } from './types';
import type { ProxySettings, Transport, TransportRequest, TransportResponse } from './transport';
import { ApiError, isApiError } from './errors';
import { DEFAULT_BASE_URL } from './defaults';
import { NO_PACING_MS, Pacer, SERVICE_PACING_MS, type PacedEndpoint, type PacingMs } from './pacing';
import { SecretRegistry, createRedactingLogger } from './redact';
import { abortError, httpError, parseAnswer, transportToApiError } from './answers';
import type * as Schemas from './schemas';
import * as l10n from '@vscode/l10n';

// The response schemas (and zod) load with the first request, not at activation: building
// them is most of what requiring the activation bundle would otherwise cost.
let schemasModule: Promise<typeof Schemas> | undefined;
const loadSchemas = (): Promise<typeof Schemas> => (schemasModule ??= import('./schemas'));

/** The key is never sent in clear off this computer: http:// is for loopback only. */
function insecureUrl(baseUrl: string, method: string, path: string): ApiError {
  let host = 'that address';
  try {
    host = new URL(baseUrl).host;
  } catch {
    // keep the generic name
  }
  return new ApiError({
    kind: 'invalid_request',
    code: 'insecure_url',
    msg: host,
    method,
    path,
    message: `${method} ${path}: not sent: the API key would travel in clear text to ${host}`,
  });
}

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

function pacingOf(p: ApiClientOptions['pacing']): PacingMs {
  if (p === 'off') return { ...NO_PACING_MS };
  if (p === undefined || p === 'service') return { ...SERVICE_PACING_MS };
  return { ...SERVICE_PACING_MS, ...p };
}

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

/** The schema of an answer or a request body, picked from the lazily loaded schemas module. */
export type SchemaOf<T = unknown> = (s: typeof Schemas) => z.ZodMiniType<T>;

export interface Endpoint<T> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  schema: SchemaOf<T>;
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

export function sleep(ms: number, signal: AbortSignal | undefined, onAbort: () => ApiError): Promise<void> {
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

export function invalid(endpoint: string, problems: string[]): ApiError {
  return new ApiError({
    kind: 'invalid_request',
    problems,
    message: `${endpoint}: request not sent: ${problems.join('; ')}`,
  });
}

export function positiveId(id: number, what: string): void {
  if (!Number.isInteger(id) || id <= 0) throw invalid(what, [l10n.t('id: must be a positive whole number, got {0}', String(id))]);
}

/** What an endpoint module gets: one way to send, the client's secrets and its redacting log. */
export interface Pipeline {
  readonly baseUrl: string;
  readonly userAgent: string;
  readonly defaultTimeout: number;
  readonly proxy: ProxySettings | null | undefined;
  /** The client's log: every line redacted of the API key and the secrets seen so far. */
  readonly log: Logger;
  /** Secret values seen in requests and answers, masked in every later log line and error. */
  readonly secrets: SecretRegistry;
  knownSecrets(): Array<string | undefined>;
  schemas(): Promise<typeof Schemas>;
  transport(): Promise<Transport>;
  /** Checks a request body before sending; throws invalid_request with every problem. */
  validate(endpoint: string, schema: SchemaOf, body: unknown): Promise<void>;
  /** Remembers secret values of a request so no later log line can show them. */
  noteRequestSecrets(body: unknown): void;
  send<T>(ep: Endpoint<T>, o: CallOptions | undefined): Promise<T>;
}

const cancelledInLine = () => new ApiError({ kind: 'aborted', message: 'The request was cancelled while waiting for its turn' });

export function createPipeline(opts: ApiClientOptions): Pipeline {
  const secrets = new SecretRegistry();
  const knownSecrets = () => [opts.credentials.token(), ...secrets.list()];
  const pacer = new Pacer(
    pacingOf(opts.pacing),
    {
      // A monotonic clock: Date.now() jumps with the computer's clock, and a clock set back an
      // hour would hold every paced endpoint back an hour.
      now: () => performance.now(),
      sleep: (ms, signal) => sleep(ms, signal, cancelledInLine),
      cancelled: cancelledInLine,
    },
    // 'off' (tests against a simulator without limits): no waits at all.
    opts.pacing === 'off' ? NO_PACING_MS : undefined,
  );
  const p: Pipeline = {
    baseUrl: (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    userAgent: opts.userAgent ?? 'gpu-rental-vscode',
    defaultTimeout: opts.timeoutMs ?? 30_000,
    proxy: opts.proxy,
    log: createRedactingLogger(opts.log, knownSecrets),
    secrets,
    knownSecrets,
    schemas: loadSchemas,
    transport: () => (opts.transport ? Promise.resolve(opts.transport) : loadTransport()),
    async validate(endpoint, schema, body) {
      const s = await loadSchemas();
      const problems = s.validateWith(schema(s), body);
      if (problems.length) throw invalid(endpoint, problems);
    },
    noteRequestSecrets(body) {
      if (!body || typeof body !== 'object') return;
      const b = body as Record<string, unknown>;
      for (const k of ['code', 'secret', 'backup_code', 'image_login']) if (typeof b[k] === 'string') secrets.add(b[k] as string);
      // Registry flags such as "-u user -p PASSWORD host": each part on its own, as a server may echo one.
      if (typeof b.image_login === 'string') secrets.add(...b.image_login.split(/\s+/).filter((t) => !t.startsWith('-')));
    },
    send: (ep, o) => send(p, opts, pacer, ep, o),
  };
  return p;
}

function retryable(e: ApiError): boolean {
  if (e.kind === 'network') return true;
  return e.status !== undefined && RETRY_STATUSES.has(e.status);
}

async function send<T>(p: Pipeline, opts: ApiClientOptions, pacer: Pacer, ep: Endpoint<T>, o: CallOptions | undefined): Promise<T> {
  const s = await loadSchemas();
  const { method, path } = ep;
  const { log } = p;
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...opts.retry };
  const random = opts.random ?? Math.random;
  const signal = o?.signal;
  const timeoutMs = o?.timeoutMs ?? p.defaultTimeout;
  const safe = (method === 'GET' || ep.idempotent === true) && !ep.creation;
  const wire = ep.body === undefined ? undefined : JSON.stringify(s.stripNulls(ep.body));
  p.noteRequestSecrets(ep.body);

  let authRetried = false;
  for (let attempt = 0; ; attempt++) {
    try {
      if (signal?.aborted) throw abortError(method, path);
      const token = opts.credentials.token();
      if (!token) throw new ApiError({ kind: 'auth', method, path, message: `${method} ${path}: not signed in (no API key)` });
      if (!mayCarryKey(p.baseUrl)) throw insecureUrl(p.baseUrl, method, path);
      const t = await p.transport();
      const turn = ep.pace ? await pacer.take(ep.pace, signal) : undefined;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': p.userAgent,
      };
      if (wire !== undefined) headers['content-type'] = 'application/json';
      const req: TransportRequest = {
        baseUrl: p.baseUrl,
        method,
        path,
        headers,
        timeoutMs,
        proxy: p.proxy,
        ...(wire !== undefined ? { body: wire } : {}),
        ...(signal ? { signal } : {}),
      };
      const started = Date.now();
      let res: TransportResponse;
      try {
        res = await t.request(req);
      } catch (e) {
        throw transportToApiError(e, ep, timeoutMs);
      } finally {
        turn?.done();
      }
      const ms = Date.now() - started;
      log.debug(`${method} ${path} -> ${res.status} (${ms} ms)`);

      if (res.status >= 200 && res.status < 300) return parseAnswer(ep, res, s, p.knownSecrets());

      const err = httpError(ep, res, p.knownSecrets());
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
      const err = isApiError(e)
        ? e
        : new ApiError({ kind: 'network', method, path, message: `${method} ${path} failed: ${e instanceof Error ? e.message : String(e)}` });
      if (!safe || attempt >= retry.retries || !retryable(err) || signal?.aborted) {
        const switching =
          ep.eraSwitch && err.kind === 'http' && ((err.status === 410 && err.code === 'deprecated_endpoint') || (err.status === 404 && !err.jsonBody));
        if (err.kind !== 'aborted' && err.kind !== 'invalid_request' && !switching)
          log.warn(`${method} ${path} failed: ${err.kind}${err.status ? ` ${err.status}` : ''}${err.code ? ` ${err.code}` : ''}`);
        throw err;
      }
      const cap = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
      const delay = Math.floor(random() * cap); // full jitter
      log.info(`${method} ${path}: ${err.kind}${err.status ? ` ${err.status}` : ''}, retry ${attempt + 1}/${retry.retries} in ${delay} ms`);
      await sleep(delay, signal, () => abortError(method, path));
    }
  }
}
