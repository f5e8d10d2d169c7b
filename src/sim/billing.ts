// What the service bills and changes under a renter (service-today.md section 10), in both eras:
// pending host price increases (created by a test/demo control call) with accept and reject by
// exactly {"pending_price_increase_id": N}, per-day charges recorded as the simulator's clock
// accrues money, and the paged v1 invoices built from the same ledger. Answers follow the
// official CLI's shapes (vastai/api/price_increase.py, vastai/api/billing.py).
import { fail } from './simError';
import { instanceComputeHour, instanceStorageHour, type SimInstance, type SimState } from './state';

interface Reply {
  status: number;
  body: unknown;
}

export interface SimPriceIncrease {
  id: number;
  instanceId: number;
  hostId: number;
  oldGpuPerSec: number;
  newGpuPerSec: number;
  oldDiskPerSec: number;
  newDiskPerSec: number;
  oldBwu: number;
  newBwu: number;
  oldBwd: number;
  newBwd: number;
  oldFee: number;
  newFee: number;
  contractEnd: number;
  askEnd: number;
  createdAt: number;
  status: 'pending' | 'accepted' | 'rejected';
}

/** What one instance cost over one UTC day, by item. */
export interface SimChargeDay {
  day: number;
  instanceId: number;
  label: string | null;
  templateId: number | null;
  gpuName: string;
  gpu: number;
  disk: number;
  /** Stable id of the invoice row this day becomes. */
  invoiceId: number;
}

export interface SimBilling {
  increases: SimPriceIncrease[];
  days: Map<string, SimChargeDay>;
  /** The account's credit purchases (invoice rows of service `credit`). */
  payments: Array<{ id: number; when: number; amount: number }>;
}

const billingByState = new WeakMap<SimState, SimBilling>();

export function billingOf(state: SimState): SimBilling {
  let b = billingByState.get(state);
  if (!b) {
    // The account's starting credit was bought the day before the simulator started.
    b = { increases: [], days: new Map(), payments: [] };
    b.payments.push({ id: state.ids.invoice++, when: Math.floor(state.lastAccrual - 86400), amount: state.user.credit });
    billingByState.set(state, b);
  }
  return b;
}

/** A reset simulator starts with no increases and no charges (their ids go on: state.ids). */
export function resetBilling(state: SimState): void {
  billingByState.delete(state);
}

export const DAY = 86400;
export const dayOf = (t: number): number => Math.floor(t / DAY) * DAY;

/**
 * Called by SimState.accrue for each instance: storage from `from` to `to`, compute from
 * `runFrom` (undefined: not billed for compute) to `to`, split at UTC midnights.
 */
export function recordUsage(state: SimState, inst: SimInstance, from: number, to: number, runFrom: number | undefined): void {
  if (to <= from) return;
  const b = billingOf(state);
  const storageHour = instanceStorageHour(inst);
  const computeHour = instanceComputeHour(inst);
  for (let a = from; a < to;) {
    const day = dayOf(a);
    const e = Math.min(to, day + DAY);
    const key = `${day}:${inst.id}`;
    let row = b.days.get(key);
    if (!row) {
      row = {
        day,
        instanceId: inst.id,
        label: inst.label,
        templateId: inst.template?.id ?? null,
        gpuName: String(inst.offer.gpu_name),
        gpu: 0,
        disk: 0,
        invoiceId: state.ids.invoice++,
      };
      b.days.set(key, row);
    }
    row.label = inst.label;
    row.disk += (storageHour * (e - a)) / 3600;
    if (runFrom !== undefined) {
      const s = Math.max(a, runFrom);
      if (e > s) row.gpu += (computeHour * (e - s)) / 3600;
    }
    a = e;
  }
}

const r6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/** The pending rows as GET /api/v0/instances/pending-price-increases/ sends them. */
function renderIncrease(p: SimPriceIncrease): Record<string, unknown> {
  return {
    pending_price_increase_id: p.id,
    contract_id: p.instanceId,
    host_id: p.hostId,
    old_gpu_costpersec: p.oldGpuPerSec,
    new_gpu_costpersec: p.newGpuPerSec,
    old_disk_ram_costpersec: p.oldDiskPerSec,
    new_disk_ram_costpersec: p.newDiskPerSec,
    old_bwu_cost: p.oldBwu,
    new_bwu_cost: p.newBwu,
    old_bwd_cost: p.oldBwd,
    new_bwd_cost: p.newBwd,
    old_platform_fee: p.oldFee,
    new_platform_fee: p.newFee,
    contract_end_date: Math.floor(p.contractEnd),
    ask_end_date: Math.floor(p.askEnd),
    created_at: Math.floor(p.createdAt),
  };
}

/** Test/demo control: a host raises the price of a running contract. */
export function createPriceIncrease(
  state: SimState,
  inst: SimInstance,
  opts: { gpuFactor?: number; diskFactor?: number; askDays?: number } = {},
): SimPriceIncrease {
  const b = billingOf(state);
  const now = state.now();
  const gpu = instanceComputeHour(inst) / 3600;
  const disk = instanceStorageHour(inst) / 3600;
  const bwu = Number(inst.offer.inet_up_cost ?? 0) || 0;
  const bwd = Number(inst.offer.inet_down_cost ?? 0) || 0;
  const gf = opts.gpuFactor ?? 1.25;
  const df = opts.diskFactor ?? 1;
  const p: SimPriceIncrease = {
    id: state.ids.priceIncrease++,
    instanceId: inst.id,
    hostId: Number(inst.offer.host_id) || 0,
    oldGpuPerSec: r6e(gpu),
    newGpuPerSec: r6e(gpu * gf),
    oldDiskPerSec: r6e(disk),
    newDiskPerSec: r6e(disk * df),
    oldBwu: bwu,
    newBwu: bwu,
    oldBwd: bwd,
    newBwd: bwd,
    oldFee: 0,
    newFee: 0,
    contractEnd: inst.createdAt + Number(inst.offer.duration ?? 0),
    askEnd: now + (opts.askDays ?? 7) * DAY,
    createdAt: now,
    status: 'pending',
  };
  b.increases.push(p);
  return p;
}

/** Per-second prices keep 9 significant digits (a $0.40/h GPU is 0.000111111 $/s). */
function r6e(n: number): number {
  return Number(n.toPrecision(9));
}

function decision(state: SimState, json: Record<string, unknown>): SimPriceIncrease {
  const extra = Object.keys(json).filter((k) => k !== 'pending_price_increase_id');
  if (extra.length)
    throw fail(
      400,
      'invalid_args',
      `Unexpected field(s) ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}: send exactly {"pending_price_increase_id": N}.`,
    );
  const id = json.pending_price_increase_id;
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
    throw fail(400, 'invalid_args', 'pending_price_increase_id is required and must be a positive whole number.');
  const p = billingOf(state).increases.find((x) => x.id === id && x.status === 'pending' && state.instances.has(x.instanceId));
  if (!p) {
    const msg = `There is no pending price increase ${id} (it was accepted, rejected or withdrawn). Refresh the list.`;
    throw state.era === 'today' ? fail(404, 'no_pending_price_increase', msg) : fail(409, 'no_pending_price_increase', msg);
  }
  return p;
}

function accept(state: SimState, p: SimPriceIncrease): void {
  const inst = state.instances.get(p.instanceId)!;
  state.accrue(); // the old price up to now
  // The host's machine now asks the new price: a copy, so other renters' records keep theirs.
  inst.offer = { ...inst.offer };
  if (inst.isBid && inst.price !== null) inst.price = Number((p.newGpuPerSec * 3600).toFixed(6));
  else inst.offer.dph_base = Number((p.newGpuPerSec * 3600).toFixed(6));
  if (inst.disk > 0) inst.offer.storage_cost = Number(((p.newDiskPerSec * 3600 * 730) / inst.disk).toFixed(6));
  p.status = 'accepted';
}

/** The billing routes, or undefined when the path is not one of them. */
export function routeBilling(
  state: SimState,
  method: string,
  path: string,
  url: URL,
  json: Record<string, unknown>,
  who: 'full' | 'read' | 'session' | 'instance',
): Reply | undefined {
  if (!/^\/api\/v0\/instances\/(pending|accept|reject)-price-increases?$|^\/api\/v0\/charges$|^\/api\/v1\/invoices$/.test(path)) return undefined;
  if (who === 'instance') throw fail(403, 'permission_denied', 'This instance key can only read, start, stop or destroy its own instance.');
  const readOnly = who === 'read';
  if (path === '/api/v0/instances/pending-price-increases' && method === 'GET') {
    const rows = billingOf(state)
      .increases.filter((p) => p.status === 'pending' && state.instances.has(p.instanceId))
      .map(renderIncrease);
    return { status: 200, body: { success: true, count: rows.length, truncated: false, pending_price_increases: rows } };
  }
  const m = /^\/api\/v0\/instances\/(accept|reject)-price-increase$/.exec(path);
  if (m) {
    if (method !== 'PUT') throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}; use PUT.`);
    if (readOnly) throw fail(403, 'permission_denied', 'This API key is read-only (instance_read). Use a key with instance_write permission.');
    const p = decision(state, json);
    if (m[1] === 'accept') accept(state, p);
    else p.status = 'rejected';
    return { status: 200, body: { success: true, msg: `Price increase ${p.id} ${m[1]}ed.` } };
  }
  if (path === '/api/v0/charges' && method === 'GET') return chargesPage(state, url);
  if (path === '/api/v1/invoices' && method === 'GET') return invoicesPage(state, url);
  return undefined;
}

interface Range {
  gte?: number;
  lte?: number;
  gt?: number;
  lt?: number;
  eq?: number;
}

function parseFilters(url: URL): Record<string, unknown> {
  const raw = url.searchParams.get('select_filters');
  if (!raw) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw fail(400, 'invalid_args', 'select_filters must be a JSON object.');
}

function inRange(t: number, r: unknown): boolean {
  if (r === undefined) return true;
  if (typeof r === 'number') return t === r;
  if (!r || typeof r !== 'object') throw fail(400, 'invalid_args', 'A date filter must be a number or {"gte": …, "lte": …}.');
  const q = r as Range;
  for (const v of Object.values(q)) if (typeof v !== 'number') throw fail(400, 'invalid_args', 'Date filter bounds must be epoch seconds.');
  return (
    (q.gte === undefined || t >= q.gte) &&
    (q.lte === undefined || t <= q.lte) &&
    (q.gt === undefined || t > q.gt) &&
    (q.lt === undefined || t < q.lt) &&
    (q.eq === undefined || t === q.eq)
  );
}

function inSet(v: string, f: unknown): boolean {
  if (f === undefined) return true;
  if (typeof f === 'string') return v === f;
  const o = f as { in?: unknown; eq?: unknown };
  if (o && Array.isArray(o.in)) return o.in.includes(v);
  if (o && typeof o.eq === 'string') return o.eq === v;
  throw fail(400, 'invalid_args', 'A type filter must be a string, {"eq": …} or {"in": [...]}.');
}

/** One page of `rows` by limit (1..100, default 20) and the opaque after_token. */
function page(url: URL, rows: Array<Record<string, unknown>>): Reply {
  const limitRaw = url.searchParams.get('limit');
  const limit = limitRaw === null ? 20 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw fail(400, 'invalid_args', 'limit must be a whole number from 1 to 100.');
  const after = url.searchParams.get('after_token');
  let offset = 0;
  if (after) {
    const m = /^p(\d+)$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
    if (!m) throw fail(400, 'invalid_args', 'after_token is not a token this list handed out.');
    offset = Number(m[1]);
  }
  const results = rows.slice(offset, offset + limit);
  const next = offset + limit < rows.length ? Buffer.from(`p${offset + limit}`, 'utf8').toString('base64url') : null;
  return { status: 200, body: { success: true, count: results.length, total: rows.length, next_token: next, results } };
}

function chargeRows(state: SimState): Array<Record<string, unknown>> {
  return [...billingOf(state).days.values()]
    .sort((a, b) => a.day - b.day || a.instanceId - b.instanceId)
    .map((d) => ({
      start: d.day,
      end: d.day + DAY,
      type: 'instance',
      source: `instance-${d.instanceId}`,
      description: `Instance ${d.instanceId} (${d.gpuName})`,
      amount: r6(d.gpu + d.disk),
      metadata: { label: d.label, template_id: d.templateId },
      items: [
        { type: 'gpu', description: 'GPU time', amount: r6(d.gpu) },
        { type: 'disk', description: 'Storage', amount: r6(d.disk) },
      ],
    }));
}

/** GET /api/v0/charges/: per day and source, filtered on `day` and `type`. */
function chargesPage(state: SimState, url: URL): Reply {
  const f = parseFilters(url);
  const rows = chargeRows(state).filter((r) => inRange(r.start as number, f.day) && inSet(r.type as string, f.type));
  return page(url, rows);
}

/** GET /api/v1/invoices/: a row per instance and day charged, and the credit purchases. */
function invoicesPage(state: SimState, url: URL): Reply {
  const f = parseFilters(url);
  const b = billingOf(state);
  const rows: Array<Record<string, unknown>> = [
    ...b.payments.map((p) => ({ id: p.id, when: p.when, service: 'credit', type: 'payment', amount: -r6(p.amount), description: 'Credit purchase' })),
    ...[...b.days.values()].map((d) => ({
      id: d.invoiceId,
      when: d.day,
      service: 'instance',
      type: 'charge',
      source: `instance-${d.instanceId}`,
      amount: r6(d.gpu + d.disk),
      description: `Instance ${d.instanceId} (${d.gpuName}), ${new Date(d.day * 1000).toISOString().slice(0, 10)}`,
    })),
  ]
    .filter((r) => inRange(r.when, f.when) && inSet(r.service, f.service))
    .sort((a, b) => a.when - b.when || a.id - b.id);
  return page(url, rows);
}

/** Control calls: POST /_sim/instances/{id}/price-increase {gpuFactor?, diskFactor?, askDays?}. */
export function controlBilling(state: SimState, path: string, json: Record<string, unknown>): Reply | undefined {
  const b = /^\/_sim\/instances\/(\d+)\/backdate$/.exec(path);
  if (b) return backdate(state, Number(b[1]), json.seconds);
  const m = /^\/_sim\/instances\/(\d+)\/price-increase$/.exec(path);
  if (!m) return undefined;
  const inst = state.instances.get(Number(m[1]));
  if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${m[1]}.` } };
  const factor = (k: string): number | undefined => {
    const v = json[k];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
  };
  const opts: { gpuFactor?: number; diskFactor?: number; askDays?: number } = {};
  if (factor('gpuFactor')) opts.gpuFactor = factor('gpuFactor')!;
  if (factor('diskFactor')) opts.diskFactor = factor('diskFactor')!;
  if (factor('askDays')) opts.askDays = factor('askDays')!;
  state.accrue();
  const p = createPriceIncrease(state, inst, opts);
  return { status: 200, body: { success: true, pending_price_increase_id: p.id } };
}

/** Test control: the instance was created `seconds` earlier (a machine stopped for days, a contract near its end). */
function backdate(state: SimState, id: number, seconds: unknown): Reply {
  const inst = state.instances.get(id);
  if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${id}.` } };
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
    return { status: 400, body: { success: false, error: 'bad_request', msg: 'seconds must be a non-negative number' } };
  state.accrue();
  const from = inst.createdAt - seconds;
  // The earlier life is billed as it would have been: storage throughout, compute while running.
  const running = inst.intended === 'running' && !inst.failure && !inst.outbid;
  const storage = (instanceStorageHour(inst) * seconds) / 3600;
  const compute = running ? (instanceComputeHour(inst) * seconds) / 3600 : 0;
  recordUsage(state, inst, from, inst.createdAt, running ? from : undefined);
  inst.storageTotal += storage;
  inst.totalCost += storage + compute;
  state.user.credit -= storage + compute;
  inst.createdAt = from;
  inst.bootStart -= seconds;
  return { status: 200, body: { success: true, start_date: inst.createdAt } };
}
