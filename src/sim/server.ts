// The HTTP front of the simulator: parsing, auth, routing, faults, rate limit, request log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimFail, fail } from './simError';
import { destroyInstance, isVisible, renderInstance, startInstance, stopInstance } from './instances';
import { createInstance } from './instanceCreate';
import { SearchError, searchOffers } from './offers';
import { controlInstanceOps, routeInstanceOps, serveLog } from './instanceOps';
import { controlBilling, routeBilling } from './billing';
import { routeSpendRate } from './spendRate';
import { SimState, holdBack, type Fault } from './state';
import { control } from './simControl';
import { handleSshKeys } from './sshKeyRoutes';
import { listInstancesV1 } from './v1list';
import { rateLimit } from './rateLimits';
import { handleTfa } from './tfaState';
import { tfaInjected, userRecord } from './tfaRules';
import { totp } from './totp';
import { instanceEnded, instanceStarted } from './onstart';
import { routeOverlay } from './overlay';
import { bulkCreate, bulkUpdate } from './bulk';

export interface Principal {
  kind: 'full' | 'read' | 'session' | 'instance';
  token: string;
  instanceId?: number;
}

interface Reply {
  status: number;
  body: unknown;
  /** Send `body` (a string) as text/plain instead of JSON. */
  text?: boolean;
  /** The Retry-After header, in seconds. */
  retryAfter?: number;
}

export async function readBody(req: IncomingMessage): Promise<{ raw: string; json: Record<string, unknown> | undefined; bad: boolean }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw.trim()) return { raw, json: undefined, bad: false };
  try {
    const v = JSON.parse(raw) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { raw, json: undefined, bad: true };
    return { raw, json: v as Record<string, unknown>, bad: false };
  } catch {
    return { raw, json: undefined, bad: true };
  }
}

function send(res: ServerResponse, status: number, body: unknown, plain = false, retryAfter?: number): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': plain ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}),
  });
  res.end(text);
}

function tokenOf(state: SimState, req: IncomingMessage, url: URL): string | undefined {
  const h = req.headers.authorization;
  if (h) {
    const m = /^Bearer\s+(.+)$/i.exec(h.trim());
    if (m) return m[1]!.trim();
  }
  // The demo takes its key only in the header: a URL ends up in logs, histories and referrers.
  return state.config.demoLock ? undefined : (url.searchParams.get('api_key') ?? undefined);
}

/** A JSON content type: application/json, or application/<x>+json, with parameters. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

export function resolvePrincipal(state: SimState, token: string | undefined): Principal | 'expired' | undefined {
  if (!token) return undefined;
  const c = state.config;
  if (token === c.apiKey) return { kind: 'full', token };
  if (token === c.readOnlyKey) return { kind: 'read', token };
  const s = state.sessions.get(token);
  if (s) return s.expired ? 'expired' : { kind: 'session', token };
  for (const inst of state.instances.values()) if (inst.apiKey === token) return { kind: 'instance', token, instanceId: inst.id };
  return undefined;
}

function faultPathMatches(want: string, exact: boolean, path: string): boolean {
  const bare = want.replace(/\/+$/, '');
  return exact ? path === bare : path.includes(want) || path.includes(bare);
}

function takeFault<K extends Fault['kind']>(state: SimState, kinds: K[], path: string): Extract<Fault, { kind: K }> | undefined {
  const i = state.faults.findIndex(
    (f) =>
      (kinds as string[]).includes(f.kind) &&
      // a fault path matches with or without its trailing slash
      (!('path' in f) || !f.path || faultPathMatches(f.path, 'exact' in f && f.exact === true, path)) &&
      (f.kind !== 'tfa_error' || path.startsWith('/api/v0/tfa')),
  );
  if (i < 0) return undefined;
  const f = state.faults[i]!;
  f.count--;
  if (f.count <= 0) state.faults.splice(i, 1);
  return f as Extract<Fault, { kind: K }>;
}

function authFail(state: SimState, path: string, present: boolean): SimFail {
  // The live service has been seen answering a bad key on instance paths with 404 auth_error.
  if (state.era === 'today' && /^\/api\/v[01]\/instances(\/|$)/.test(path)) {
    return fail(404, 'auth_error', 'Invalid user key. Check the API key (Authorization: Bearer <key>) and try again.');
  }
  if (path.startsWith('/api/v0/tfa')) {
    return present
      ? fail(403, 'auth_error', 'Authentication failed: the API key or 2FA session is invalid or expired. Sign in again.')
      : fail(401, 'missing_auth_value', 'No authentication given: send an API key as a bearer token or a tfa_secret.');
  }
  return fail(401, 'auth_error', 'Invalid or missing API key. Check the key (Authorization: Bearer <key>) and try again.');
}

const denyWrite = () => fail(403, 'permission_denied', 'This API key is read-only (instance_read). Use a key with instance_write permission.');

/**
 * `sync` runs before and after each request: the SSH servers follow the instances' states. A
 * route runs right after its own sync, and the chain runs each sync after every route that came
 * before it, so a record read never shows a running instance without its listener (unless
 * opening it failed: SimSshServers.problemOf, logged).
 */
export function createHandler(state: SimState, sync: () => Promise<void> = async () => undefined): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(state, req, res, sync).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { success: false, error: 'internal_error', msg: `Simulator error: ${(e as Error).message}` });
    });
  };
}

async function handle(state: SimState, req: IncomingMessage, res: ServerResponse, sync: () => Promise<void>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.local');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const body = await readBody(req);
  if (state.config.demoLock && body.raw.trim() && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    return send(res, 415, { success: false, error: 'unsupported_media_type', msg: 'Send the body as JSON with Content-Type: application/json.' });
  }
  await sync();

  if (path === '/_sim/inbox' && method === 'GET' && (state.config.demoInbox || state.config.testControl)) {
    // The demo's inbox: what the account's e-mail and phone received, for the account's own key only.
    const who = resolvePrincipal(state, tokenOf(state, req, url));
    if (!who || who === 'expired' || who.kind === 'instance') return send(res, 401, { success: false, error: 'auth_error', msg: 'Invalid user key.' });
    // And what each authenticator app on the account would show right now (the demo user has no app for a simulated key).
    const now = state.now();
    const apps = state.tfa.methods.flatMap((m) =>
      m.method === 'totp' && m.totpSecret ? [{ channel: 'app', to: m.label, code: totp(m.totpSecret, now), at: now }] : [],
    );
    return send(res, 200, { messages: [...state.outbox.map((m) => ({ channel: m.channel, to: m.to, code: m.code, at: m.at })), ...apps] });
  }
  if (path.startsWith('/_sim')) {
    // The demo's fake GPU load (its "Set Demo GPU Load" command): demo mode, the account's own key.
    const demoGpu = state.config.demoInbox && method === 'POST' && /^\/_sim\/instances\/\d+\/gpu$/.test(path);
    if (demoGpu) {
      const who = resolvePrincipal(state, tokenOf(state, req, url));
      if (!who || who === 'expired' || who.kind === 'instance') return send(res, 401, { success: false, error: 'auth_error', msg: 'Invalid user key.' });
    } else if (!state.config.testControl) return send(res, 404, { success: false, error: 'not_found', msg: 'Not found.' });
    const r = controlInstanceOps(state, path, body.json ?? {}) ?? controlBilling(state, path, body.json ?? {}) ?? control(state, method, path, body.json ?? {});
    await sync();
    return send(res, r.status, r.body);
  }
  // Uploaded logs live at a plain, unauthenticated URL (like a storage bucket's).
  if (serveLog(state, req, res, url.pathname)) return;

  state.accrue();
  const log = (status: number) => {
    state.requests.push({ method, path: url.pathname, status, at: state.now() });
    if (state.requests.length > 20000) state.requests.splice(0, 10000); // bounded in long demo sessions
  };

  let reply: Reply;
  const pre = takeFault(state, ['http_error', 'refused', 'tfa_error'], path);
  if (pre?.kind === 'refused') {
    reply = { status: 200, body: { success: false, msg: pre.msg ?? 'Injected refusal: the request was not carried out.' } };
  } else if (pre?.kind === 'http_error') {
    reply =
      pre.status === 429 && !pre.error
        ? { status: 429, body: { detail: 'API requests too frequent' } }
        : { status: pre.status, body: { success: false, error: pre.error ?? 'sim_fault', msg: pre.msg ?? `Injected HTTP ${pre.status}.` } };
    if (pre.retryAfter !== undefined) reply.retryAfter = pre.retryAfter;
  } else {
    try {
      if (pre?.kind === 'tfa_error') throw tfaInjected(state, pre.error);
      reply = route(state, method, path, url, req, body);
    } catch (e) {
      if (e instanceof SimFail) reply = { status: e.status, body: e.body() };
      else throw e;
    }
  }

  await sync();
  const post = takeFault(state, ['slow', 'malformed', 'truncated', 'wrong_shape', 'huge', 'reset'], path);
  // A reset or the simulator's close drops an answer still held back: not sent, not logged.
  if (post?.kind === 'slow' && !(await holdBack(state, post.ms))) {
    req.socket.destroy();
    return;
  }
  if (post?.kind === 'reset') {
    log(0);
    req.socket.destroy();
    return;
  }
  log(reply.status);
  if (post?.kind === 'malformed') {
    res.writeHead(reply.status, { 'Content-Type': 'application/json' });
    res.end('{"success": tru');
    return;
  }
  if (post?.kind === 'truncated') {
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) + 64 });
    res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    setTimeout(() => req.socket.destroy(), 20);
    return;
  }
  if (post?.kind === 'wrong_shape') return send(res, reply.status, { success: true, instances: 'not-a-list', offers: 7 });
  if (post?.kind === 'huge') return sendHuge(res, post.bytes, post.declare);
  send(res, reply.status, reply.body, reply.text === true, reply.retryAfter);
}

/** A valid JSON answer of about `bytes` bytes, written in 64 KB chunks. */
function sendHuge(res: ServerResponse, bytes: number, declare: boolean): void {
  const head = '{"success":true,"pad":"';
  const tail = '"}';
  const padLen = Math.max(0, bytes - head.length - tail.length);
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
  if (declare) headers['Content-Length'] = head.length + padLen + tail.length;
  res.writeHead(200, headers);
  res.write(head);
  const chunk = 'x'.repeat(65536);
  let left = padLen;
  const pump = (): void => {
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!res.write(n === chunk.length ? chunk : chunk.slice(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(tail);
  };
  res.on('close', () => {
    left = 0;
  });
  pump();
}

/** /api/v0/instances/{id}/: read one instance, change its state or label, destroy it. */
function routeInstance(state: SimState, method: string, path: string, rawId: string, json: Record<string, unknown>, who: Principal): Reply {
  const id = Number(rawId);
  if (!Number.isInteger(id) || id <= 0) throw fail(400, 'invalid_args', `'${rawId}' is not a valid instance id.`);
  if (who.kind === 'instance') {
    // Section 7: the key inside an instance may read, start, stop or destroy that one instance.
    const ok = who.instanceId === id && (method === 'GET' || (method === 'PUT' && 'state' in json && !('label' in json)) || method === 'DELETE');
    if (!ok) throw fail(403, 'permission_denied', 'This instance key can only read, start, stop or destroy its own instance.');
  }
  const limited = rateLimit(state, who.token, method === 'GET' ? 'show' : method === 'DELETE' ? 'destroy' : 'update');
  if (limited) return limited;
  const inst = state.instances.get(id);
  if (method === 'GET') {
    // Reads lag behind a creation; an unknown (destroyed) id: the live service answers
    // {"instances": null}, the seed an empty object. Writes act on the instance at once.
    const shown = inst && isVisible(state, inst) ? inst : undefined;
    return { status: 200, body: { instances: shown ? renderInstance(state, shown) : state.era === 'today' ? null : {} } };
  }
  if (who.kind === 'read') throw denyWrite();
  if (!inst) throw fail(404, 'no_such_instance', `Instance ${id} does not exist (it may have been destroyed). Refresh the list.`);
  if (method === 'PUT') {
    let did = false;
    if (json.state !== undefined && json.state !== null) {
      if (json.state === 'stopped') {
        stopInstance(state, inst);
        instanceEnded(state, inst.id);
      } else if (json.state === 'running') {
        startInstance(state, inst);
        instanceStarted(state, inst);
      } else throw fail(400, 'invalid_args', "state must be 'running' or 'stopped'.");
      did = true;
    }
    if (json.label !== undefined) {
      if (json.label !== null && typeof json.label !== 'string') throw fail(400, 'invalid_args', 'label must be a string.');
      inst.label = (json.label as string | null) || null;
      did = true;
    }
    if (!did) throw fail(400, 'invalid_args', 'Nothing to change: send {"state": "running"|"stopped"} or {"label": "..."}.');
    return { status: 200, body: { success: true } };
  }
  if (method === 'DELETE') {
    destroyInstance(state, inst);
    instanceEnded(state, inst.id);
    return { status: 200, body: { success: true } };
  }
  throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
}

function route(
  state: SimState,
  method: string,
  path: string,
  url: URL,
  req: IncomingMessage,
  body: { json: Record<string, unknown> | undefined; bad: boolean },
): Reply {
  const token = tokenOf(state, req, url);
  const who = resolvePrincipal(state, token);
  if (path.startsWith('/api/v0/tfa')) {
    return handleTfa(state, method, path, body, who === 'expired' ? undefined : who, token !== undefined);
  }
  if (!who || who === 'expired') throw authFail(state, path, token !== undefined);
  if (body.bad) throw fail(400, 'invalid_args', 'The request body is not valid JSON.');
  const json = body.json ?? {};
  const billing = routeBilling(state, method, path, url, json, who.kind) ?? (who.kind === 'instance' ? undefined : routeSpendRate(state, method, path)); // src/sim/billing.ts, spendRate.ts
  if (billing) return billing;

  let m: RegExpExecArray | null;
  if ((m = /^\/api\/v0\/instances\/(\d+)$/.exec(path)) || (m = /^\/api\/v0\/instances\/([^/]+)$/.exec(path)))
    return routeInstance(state, method, path, m[1]!, json, who);
  if (who.kind === 'instance') throw fail(403, 'permission_denied', 'This instance key can only read, start, stop or destroy its own instance.');
  const extra = routeInstanceOps(state, method, path, url, json, req, who.kind === 'read');
  if (extra) return extra;

  const groups = path === '/api/v0/overlay' || (path === '/api/v0/asks/bulk' && method === 'POST') || (path === '/api/v0/instances' && method === 'PUT');
  // The seed's server has neither overlays nor bulk calls: its web server answers a plain 404.
  if (groups && state.era === 'seed') return { status: 404, body: 'Not Found', text: true };
  const overlay = routeOverlay(state, method, path, json, who.kind === 'read'); // src/sim/overlay.ts
  if (overlay) return overlay;
  if (groups) {
    if (who.kind === 'read') throw denyWrite();
    const limited = rateLimit(state, who.token, method === 'POST' ? 'create' : 'update');
    return limited ?? (method === 'POST' ? bulkCreate(state, json) : bulkUpdate(state, json)); // src/sim/bulk.ts
  }
  if (path === '/api/v0/instances' && method === 'GET') {
    if (state.era === 'today') {
      throw fail(410, 'deprecated_endpoint', '/api/v0/instances/ is deprecated. Use /api/v1/instances/ instead.');
    }
    const list = [...state.instances.values()].filter((i) => isVisible(state, i)).map((i) => renderInstance(state, i));
    return { status: 200, body: { instances_found: list.length, instances: list } };
  }
  if (path === '/api/v1/instances' && method === 'GET') {
    // The seed's service has no v1: its web server answers a plain 404.
    if (state.era === 'seed') return { status: 404, body: 'Not Found', text: true };
    return rateLimit(state, who.token, 'list') ?? listInstancesV1(state, url, takeFault(state, ['unfiltered'], path) !== undefined);
  }
  if (path === '/api/v0/bundles' && (method === 'POST' || method === 'PUT' || method === 'GET')) {
    // The query as the body, or wrapped as {"q": {...}} (the CLI's other search form).
    let q = json.q !== null && typeof json.q === 'object' && !Array.isArray(json.q) ? (json.q as Record<string, unknown>) : json;
    if (method === 'GET' && url.searchParams.get('q')) {
      try {
        q = JSON.parse(url.searchParams.get('q')!) as Record<string, unknown>;
      } catch {
        throw fail(400, 'invalid_args', 'q is not valid JSON.');
      }
    }
    const limited = rateLimit(state, who.token, 'search');
    if (limited) return limited;
    try {
      return { status: 200, body: { offers: searchOffers(state.offers, q, { priceStorage: state.era === 'today', noClusters: state.era === 'seed' }) } };
    } catch (e) {
      if (e instanceof SearchError) {
        // The live service answers a bad search without `success`.
        if (state.era === 'today') return { status: 400, body: { error: 'invalid_request', msg: `Bad search: ${e.message}.` } };
        throw fail(400, 'invalid_args', `Bad search: ${e.message}.`);
      }
      throw e;
    }
  }
  if ((m = /^\/api\/v0\/asks\/([^/]+)$/.exec(path)) && (method === 'PUT' || method === 'POST')) {
    if (who.kind === 'read') throw denyWrite();
    const offerId = Number(m[1]);
    if (!Number.isInteger(offerId) || offerId <= 0) throw fail(400, 'invalid_args', `'${m[1]}' is not a valid offer id.`);
    const limited = rateLimit(state, who.token, 'create');
    if (limited) return limited;
    const { id, apiKey } = createInstance(state, offerId, json);
    const hide = takeFault(state, ['hidden'], path);
    const created = state.instances.get(id);
    if (hide && created) created.visibleAt = state.now() + hide.seconds;
    instanceStarted(state, state.instances.get(id)!);
    // The live service documents only success and new_contract (the key may be missing: the
    // client accepts both); the simulator sends the key in both eras, as the service does today.
    return { status: 200, body: { success: true, new_contract: id, instance_api_key: apiKey } };
  }
  const keys = handleSshKeys(state, method, path, json, who.kind === 'read');
  if (keys) return keys;
  if (path === '/api/v0/users/current' && method === 'GET') {
    return { status: 200, body: userRecord(state) };
  }
  throw fail(404, 'not_found', `No endpoint ${method} ${path}.`);
}
