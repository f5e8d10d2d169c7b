// The instance calls renters use every week beyond start/stop (service-today §6): container and
// daemon logs (uploaded to an unauthenticated result_url that 404s for a moment), reboot,
// recycle, change of bid, and the server-template search. Also the test control that marks an
// interruptible instance outbid.
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fail } from './simError';
import { actualStatus } from './instances';
import { SearchError, compare } from './offers';
import { instanceEnded, instanceStarted } from './onstart';
import { instanceHome } from './sandbox';
import { TEMPLATES, randomKey, type SimInstance, type SimState, type SimTemplate } from './state';

interface Reply {
  status: number;
  body: unknown;
}

const LOG_PATH = /^\/static\/logs\/([0-9a-f]+)\.log$/;
const MAX_UPLOADS = 200;

function iso(t: number): string {
  return new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

const FAILURE_REASONS: Record<string, string[]> = {
  exited: [
    'RuntimeError: CUDA error: out of memory',
    'Error: container exited with code 137 (killed: out of memory). Use a machine with more RAM or a smaller batch size.',
  ],
  unknown: ['Warning: no heartbeat from the host daemon for 300 s; the instance state is unknown.'],
  offline: ['Error: the host went offline (network unreachable); the container is not running.'],
};

/** The container's stdout/stderr as the service would upload it. */
function containerLog(state: SimState, inst: SimInstance): string[] {
  const now = state.now();
  const out: string[] = [];
  const at = (t: number, line: string) => out.push(`${iso(Math.min(t, now))} ${line}`);
  const t0 = inst.bootStart;
  at(t0, `Container ${inst.id} starting from ${inst.image}`);
  at(t0 + 1, 'Setting up the container environment (/etc/environment, /root/.ssh/authorized_keys)');
  if (inst.runtype.some((r) => r.startsWith('ssh') || r.startsWith('jupyter'))) at(t0 + 2, 'Starting OpenSSH server on port 22');
  if (inst.runtype.some((r) => r.startsWith('jupyter')))
    at(t0 + 3, `Starting ${inst.useJupyterLab ? 'JupyterLab' : 'Jupyter'} on port 8080 (dir ${inst.jupyterDir ?? '/'})`);
  if (inst.runtype.includes('args')) at(t0 + 3, `exec ${inst.image.split(':')[0]} ${inst.argsStr ?? ''}`.trim());
  if (inst.onstart && inst.onstart.trim()) {
    at(t0 + 4, 'onstart: running /root/onstart.sh');
    for (const line of inst.onstart.split('\n').filter((l) => l.trim())) at(t0 + 4, `+ ${line}`);
    // What the script really printed, when the simulator runs onstart scripts (--run-onstart)
    const ran = join(instanceHome(state, inst.id), 'onstart.log');
    if (existsSync(ran)) for (const line of readFileSync(ran, 'utf8').split('\n').filter(Boolean).slice(-200)) at(t0 + 5, line);
    else at(t0 + 5, 'onstart: finished (exit 0)');
  }
  const status = actualStatus(inst, now);
  if (inst.failure) {
    for (const reason of FAILURE_REASONS[inst.failure] ?? [`Error: container ${inst.failure}`]) at(now, reason);
    return out;
  }
  if (status === 'running' || status === 'rebooting') {
    const ready = inst.bootStart + inst.bootSeconds;
    at(ready, 'Instance ready: all services started');
    // one monitor line per minute of uptime, so tail and filter have something to cut
    const minutes = Math.min(300, Math.floor((now - ready) / 60));
    for (let m = 1; m <= minutes; m++) at(ready + m * 60, `[monitor] gpu util ${(m * 7) % 100}% mem ${512 + ((m * 37) % 1024)} MiB`);
  }
  if (inst.rebootUntil !== undefined && now < inst.rebootUntil) at(now, 'Received reboot request: restarting the container (the GPU stays reserved)');
  if (inst.outbid) at(now, 'Stopped by the host: outbid by a higher interruptible bid');
  return out;
}

/** The host daemon's view: image pull, container create (with its environment), exits. */
function daemonLog(state: SimState, inst: SimInstance): string[] {
  const now = state.now();
  const out: string[] = [];
  const at = (t: number, line: string) => out.push(`${iso(Math.min(t, now))} vastd[${inst.offer.machine_id as number}]: ${line}`);
  at(inst.createdAt, `contract ${inst.id} accepted on machine ${inst.offer.machine_id as number}`);
  at(inst.createdAt + 1, `pulling image ${inst.image}`);
  at(inst.createdAt + Math.min(inst.bootSeconds * 0.8, 40), `pull complete: ${inst.image}`);
  // The daemon logs the container's environment, which is why clients must redact logs.
  at(inst.bootStart, `docker create --name C.${inst.id} -e CONTAINER_ID=${inst.id} -e CONTAINER_API_KEY=${inst.apiKey} ${inst.image}`);
  at(inst.bootStart + 1, `container C.${inst.id} started (restart ${inst.restarts})`);
  if (inst.failure === 'exited') at(now, `container C.${inst.id} exited with code 137 (OOMKilled=true)`);
  else if (inst.failure) at(now, `lost contact with the container (state ${inst.failure})`);
  if (inst.outbid) at(now, `container C.${inst.id} stopped: outbid (min bid now $${inst.offer.min_bid}/h)`);
  return out;
}

function grep(lines: string[], filter: string): string[] {
  let re: RegExp | undefined;
  try {
    re = new RegExp(filter);
  } catch {
    re = undefined;
  }
  return lines.filter((l) => (re ? re.test(l) : l.includes(filter)));
}

function findInstance(state: SimState, raw: string, notFound: string): SimInstance {
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) throw fail(400, 'invalid_args', `'${raw}' is not a valid instance id.`);
  const inst = state.instances.get(id);
  if (!inst) throw fail(404, notFound, `Instance ${id} does not exist (it may have been destroyed). Refresh the list.`);
  return inst;
}

function truthy(v: unknown): boolean {
  return v === true || (typeof v === 'string' && /^(true|1|yes)$/i.test(v));
}

function requestLogs(state: SimState, inst: SimInstance, json: Record<string, unknown>, req: IncomingMessage): Reply {
  let tail: number | undefined;
  if (json.tail !== undefined && json.tail !== null) {
    const n = typeof json.tail === 'string' ? Number(json.tail) : json.tail;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw fail(400, 'invalid_args', 'tail must be a whole number of lines, e.g. "1000".');
    tail = n;
  }
  if (json.filter !== undefined && json.filter !== null && typeof json.filter !== 'string') throw fail(400, 'invalid_args', 'filter must be a string.');
  let lines = truthy(json.daemon_logs) ? daemonLog(state, inst) : containerLog(state, inst);
  if (typeof json.filter === 'string' && json.filter) lines = grep(lines, json.filter);
  if (tail !== undefined) lines = tail === 0 ? [] : lines.slice(-tail);
  const token = randomKey(16);
  state.logUploads.set(token, { text: lines.join('\n') + (lines.length ? '\n' : ''), readyAt: Date.now() + (state.config.logDelayMs ?? 900) });
  while (state.logUploads.size > MAX_UPLOADS) state.logUploads.delete(state.logUploads.keys().next().value as string);
  const host = req.headers.host ?? `${state.config.host}:${state.config.port}`;
  return {
    status: 200,
    body: { success: true, result_url: `http://${host}/static/logs/${token}.log`, msg: 'Logs are being uploaded; fetch result_url in a few seconds.' },
  };
}

function reboot(state: SimState, inst: SimInstance): Reply {
  if (inst.intended === 'stopped') throw fail(400, 'instance_stopped', `Instance ${inst.id} is stopped: start it instead of rebooting.`);
  if (inst.outbid) throw fail(400, 'instance_outbid', `Instance ${inst.id} was outbid: raise its bid to run it again.`);
  if (inst.failure === 'offline' || inst.failure === 'unknown') {
    throw fail(
      400,
      'host_unreachable',
      `The host of instance ${inst.id} is not reachable (${inst.failure}); a reboot cannot reach it. Destroy the instance or wait for the host.`,
    );
  }
  state.accrue();
  const now = state.now();
  const pause = Math.max(3, inst.bootSeconds / 4);
  inst.failure = null;
  inst.restarts++;
  inst.rebootUntil = now + pause;
  // running again (without a new image pull) once the reboot ends
  inst.bootStart = inst.rebootUntil - inst.bootSeconds;
  return { status: 200, body: { success: true } };
}

function recycle(state: SimState, inst: SimInstance): Reply {
  if (inst.outbid) throw fail(400, 'instance_outbid', `Instance ${inst.id} was outbid: raise its bid to run it again.`);
  state.accrue();
  inst.failure = null;
  inst.intended = 'running';
  inst.everStarted = true;
  inst.restarts++;
  inst.rebootUntil = undefined;
  inst.bootStart = state.now(); // a fresh image pull: provisioning, loading, running
  return { status: 200, body: { success: true } };
}

function changeBid(state: SimState, inst: SimInstance, json: Record<string, unknown>): Reply {
  if (!inst.isBid) throw fail(400, 'not_interruptible', `Instance ${inst.id} is on-demand: only interruptible instances have a bid.`);
  const p = typeof json.price === 'string' ? Number(json.price) : json.price;
  if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0) throw fail(400, 'invalid_price', 'price must be a positive number of dollars per hour.');
  if (p < inst.offer.min_bid) throw fail(400, 'bid_too_low', `Bid $${p}/h is below the current minimum bid $${inst.offer.min_bid}/h. Raise the price.`);
  state.accrue();
  inst.price = p;
  if (inst.outbid) {
    inst.outbid = false;
    inst.restarts++;
    inst.bootStart = state.now();
  }
  return { status: 200, body: { success: true } };
}

function splitImage(image: string): { image: string; tag: string } {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? { image: image.slice(0, colon), tag: image.slice(colon + 1) } : { image, tag: 'latest' };
}

/** A template as GET /api/v0/template/ answers it: env as docker flags, never the registry password. */
function renderTemplate(t: SimTemplate): Record<string, unknown> {
  const env = Object.entries(t.env)
    .map(([k, v]) => (k.startsWith('-') ? k : `-e ${k}=${v}`))
    .join(' ');
  const { image, tag } = splitImage(t.image);
  return {
    id: t.id,
    hash_id: t.hash_id,
    name: t.name,
    image,
    tag,
    env,
    onstart: t.onstart,
    runtype: t.runtype,
    args_str: t.args_str ?? '',
    recommended: !!t.recommended,
    recommended_disk_space: t.disk,
    desc: t.description ?? '',
    count_created: t.count_created ?? 0,
    creator_id: 1,
    private: false,
    use_ssh: t.runtype !== 'args',
    ssh_direct: t.runtype.endsWith('_direct'),
    jup_direct: t.runtype === 'jupyter_direct',
    use_jupyter_lab: !!t.use_jupyter_lab,
    jupyter_dir: t.jupyter_dir ?? null,
    docker_login_repo: t.docker_login_repo ?? null,
  };
}

function jsonParam(url: URL, name: string): unknown {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw fail(400, 'invalid_args', `${name} is not valid JSON.`);
  }
}

function searchTemplates(url: URL): Reply {
  const filters = jsonParam(url, 'select_filters') ?? {};
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters))
    throw fail(400, 'invalid_args', 'select_filters must be a JSON object such as {"recommended": {"eq": true}}.');
  let rows = TEMPLATES.map(renderTemplate);
  try {
    for (const [field, spec] of Object.entries(filters as Record<string, unknown>)) {
      const ops = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? Object.entries(spec as Record<string, unknown>) : [['eq', spec] as const];
      for (const [op, v] of ops) {
        if (!['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin', 'nin'].includes(op)) throw new SearchError(`unknown operator '${op}' on ${field}`);
        rows = rows.filter((r) => compare(op, r[field], v, field));
      }
    }
  } catch (e) {
    if (e instanceof SearchError) throw fail(400, 'invalid_args', `Bad template search: ${e.message}.`);
    throw e;
  }
  const orderRaw = url.searchParams.get('order_by');
  if (orderRaw) {
    const desc = orderRaw.startsWith('-');
    const col = orderRaw.replace(/^[-+]/, '');
    if (!/^[a-z_]+$/.test(col)) throw fail(400, 'invalid_args', `order_by '${orderRaw}' is not a column name.`);
    rows.sort((a, b) => {
      const x = a[col] as number | string | boolean | null;
      const y = b[col] as number | string | boolean | null;
      const c = x === y ? (a.id as number) - (b.id as number) : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      return desc && x !== y ? -c : c;
    });
  }
  const cols = jsonParam(url, 'select_cols');
  if (cols !== undefined && (!Array.isArray(cols) || !cols.every((c) => typeof c === 'string')))
    throw fail(400, 'invalid_args', 'select_cols must be a JSON list of column names.');
  const picked = !cols || (cols as string[]).includes('*') ? rows : rows.map((r) => Object.fromEntries((cols as string[]).map((c) => [c, r[c] ?? null])));
  return { status: 200, body: { success: true, templates_found: picked.length, templates: picked } };
}

/**
 * Routes the calls of this file; undefined when the path is not one of them. Runs after
 * authentication; `readOnly` keys may read (logs, templates) but not change anything.
 */
export function routeInstanceOps(
  state: SimState,
  method: string,
  path: string,
  url: URL,
  json: Record<string, unknown>,
  req: IncomingMessage,
  readOnly: boolean,
): Reply | undefined {
  if (path === '/api/v0/template' && method === 'GET') return searchTemplates(url);
  const m = /^\/api\/v0\/instances\/(request_logs|reboot|recycle|bid_price)\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  if (method !== 'PUT') throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}; use PUT.`);
  const [, op, raw] = m as unknown as [string, string, string];
  if (op === 'request_logs') return requestLogs(state, findInstance(state, raw, 'invalid_id'), json, req);
  if (readOnly) throw fail(403, 'permission_denied', 'This API key is read-only (instance_read). Use a key with instance_write permission.');
  const inst = findInstance(state, raw, 'no_such_instance');
  // A reboot or recycle restarts the container: what onstart started ends, onstart runs again.
  const restart = (r: Reply) => (instanceEnded(state, inst.id, 0), instanceStarted(state, inst), r);
  if (op === 'reboot') return restart(reboot(state, inst));
  if (op === 'recycle') return restart(recycle(state, inst));
  return changeBid(state, inst, json);
}

/** GET of a log result_url: no authentication (and none expected), 404 until the upload lands. */
export function serveLog(state: SimState, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const m = LOG_PATH.exec(path);
  if (!m) return false;
  const upload = state.logUploads.get(m[1]!);
  const ready = !!upload && (req.method ?? 'GET').toUpperCase() === 'GET' && Date.now() >= upload.readyAt;
  const status = ready ? 200 : 404;
  state.logFetches.push({ path, status, authorization: req.headers.authorization !== undefined || /[?&]api_key=/.test(req.url ?? '') });
  if (state.logFetches.length > 1000) state.logFetches.splice(0, 500);
  const text = ready
    ? upload.text
    : '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';
  res.writeHead(status, { 'Content-Type': ready ? 'text/plain; charset=utf-8' : 'application/xml', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}

/** POST /_sim/instances/{id}/outbid: another renter outbids an interruptible instance. */
export function controlInstanceOps(state: SimState, path: string, json: Record<string, unknown>): Reply | undefined {
  const m = /^\/_sim\/instances\/(\d+)\/outbid$/.exec(path);
  if (!m) return undefined;
  const inst = state.instances.get(Number(m[1]));
  if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${m[1]}.` } };
  if (!inst.isBid)
    return {
      status: 400,
      body: { success: false, error: 'bad_request', msg: `Instance ${inst.id} is on-demand; only interruptible instances can be outbid.` },
    };
  state.accrue();
  const current = inst.price ?? inst.offer.min_bid;
  const minBid = typeof json.minBid === 'number' && json.minBid > 0 ? json.minBid : Math.round(current * 1.25 * 10_000) / 10_000;
  inst.offer.min_bid = Math.max(inst.offer.min_bid, minBid);
  inst.outbid = true;
  return { status: 200, body: { success: true, min_bid: inst.offer.min_bid } };
}
