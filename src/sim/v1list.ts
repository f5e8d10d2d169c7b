// GET /api/v1/instances/: the live service's keyset-paged instance list (service-today.md
// section 2), with every parameter and error it documents.
import { fail } from './simError';
import { isVisible, renderInstance } from './instances';
import type { SimState } from './state';

const MAX_LIMIT = 25;
const NONPOSITIVE_LIMIT = 5;
const OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin']);
/** Columns the service computes per read: they can be selected and ordered by, not filtered on. */
const COMPUTED = new Set([
  'dph_total',
  'dph_base',
  'num_gpus',
  'dlperf_per_dphtotal',
  'flops_per_dphtotal',
  'uptime_mins',
  'duration',
  'storage_total_cost',
  'total_cost',
  'credit_balance',
  'client_run_time',
  'host_run_time',
  'search',
  'instance',
  'ports',
  'time_remaining',
  'time_remaining_isbid',
  'status_msg',
]);

type Row = Record<string, unknown>;
interface Order {
  col: string;
  desc: boolean;
}

function jsonParam(url: URL, name: string): unknown {
  const raw = url.searchParams.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw fail(400, 'invalid_args', `${name} is not valid JSON.`);
  }
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1; // nulls last
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : 1;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function matches(op: string, actual: unknown, want: unknown): boolean {
  const norm = (v: unknown) => (typeof actual === 'number' && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
  if (op === 'in' || op === 'notin') {
    if (!Array.isArray(want)) throw fail(400, 'invalid_args', `select_filters: operator '${op}' needs an array.`);
    const hit = want.some((v) => norm(v) === actual);
    return op === 'in' ? hit : !hit;
  }
  const v = norm(want);
  if (op === 'eq') return actual === v;
  if (op === 'neq') return actual !== v;
  if (actual === null || actual === undefined || v === null || v === undefined) return false;
  const c = compare(actual, v);
  if (op === 'gt') return c > 0;
  if (op === 'gte') return c >= 0;
  if (op === 'lt') return c < 0;
  return c <= 0;
}

function encodeToken(keys: unknown[]): string {
  return Buffer.from(JSON.stringify({ k: keys }), 'utf8').toString('base64url');
}

function decodeToken(token: string, n: number): unknown[] {
  try {
    const j = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k?: unknown };
    if (Array.isArray(j.k) && j.k.length === n) return j.k;
  } catch {
    // fall through
  }
  throw fail(400, 'invalid_args', 'after_token is not a token this list gave out. Start the walk again without after_token.');
}

/** `unfiltered`: select_filters is checked but not applied (the `unfiltered` fault: a server that ignores it). */
export function listInstancesV1(state: SimState, url: URL, unfiltered = false): { status: number; body: unknown } {
  const visible = [...state.instances.values()].filter((i) => isVisible(state, i));
  // Rows are rendered only when a filter or the order needs a rendered column (a walk of 1,000
  // instances ordered by id renders each row once, on its page).
  const rendered = new Map<number, Row>();
  const render = (inst: (typeof visible)[number]): Row => {
    let r = rendered.get(inst.id);
    if (!r) rendered.set(inst.id, (r = renderInstance(state, inst)));
    return r;
  };
  const byId = new Map(visible.map((i) => [i.id, i]));
  const columns = new Set(Object.keys(render(visible[0] ?? sampleless(state))));
  const col = (row: Row, c: string): unknown => row[c];
  type Rec = { id: number; label: string | null };
  const rows: Row[] = visible.map((i) => ({ id: i.id, label: i.label }) satisfies Rec);
  const full = (r: Row): Row => render(byId.get(r.id as number)!);
  const cheap = new Set(['id', 'label']);
  const value = (r: Row, c: string): unknown => (cheap.has(c) ? col(r, c) : col(full(r), c));

  // limit: default and maximum 25, a value <= 0 counts as 5.
  let limit = MAX_LIMIT;
  const rawLimit = url.searchParams.get('limit');
  if (rawLimit !== null && rawLimit.trim() !== '') {
    const n = Number(rawLimit);
    if (!Number.isInteger(n)) throw fail(400, 'invalid_args', 'limit must be a whole number.');
    limit = n <= 0 ? NONPOSITIVE_LIMIT : Math.min(n, MAX_LIMIT);
  }

  // order_by: [{col, dir}], dir other than desc is asc; id always appended as the tie-breaker.
  const order: Order[] = [];
  const rawOrder = jsonParam(url, 'order_by');
  if (rawOrder !== undefined) {
    const list = Array.isArray(rawOrder) ? rawOrder : [rawOrder];
    for (const o of list) {
      const col = typeof o === 'string' ? o : o && typeof o === 'object' ? (o as Row).col : undefined;
      if (typeof col !== 'string' || !columns.has(col)) throw fail(400, 'invalid_args', `order_by: unknown column '${String(col).slice(0, 40)}'.`);
      const dir = o && typeof o === 'object' ? (o as Row).dir : undefined;
      order.push({ col, desc: dir === 'desc' });
    }
  }
  if (!order.some((o) => o.col === 'id')) order.push({ col: 'id', desc: false });

  // select_filters: {col: {op: value}} on stored columns only.
  const rawFilters = jsonParam(url, 'select_filters');
  const filters: Array<[string, string, unknown]> = [];
  if (rawFilters !== undefined) {
    if (!rawFilters || typeof rawFilters !== 'object' || Array.isArray(rawFilters)) throw fail(400, 'invalid_args', 'select_filters must be a JSON object.');
    for (const [col, spec] of Object.entries(rawFilters as Row)) {
      if (COMPUTED.has(col)) throw fail(400, 'invalid_args', `select_filters: '${col}' is computed and cannot be filtered on.`);
      if (!columns.has(col)) throw fail(400, 'invalid_args', `select_filters: unknown column '${col.slice(0, 40)}'.`);
      if (!spec || typeof spec !== 'object' || Array.isArray(spec)) {
        filters.push([col, 'eq', spec]);
        continue;
      }
      for (const [op, v] of Object.entries(spec as Row)) {
        if (!OPS.has(op)) throw fail(400, 'invalid_args', `select_filters: unknown operator '${op.slice(0, 20)}' on ${col}.`);
        filters.push([col, op, v]);
      }
    }
  }

  // select_cols: default ["*"]; unknown names come back as null.
  const rawCols = jsonParam(url, 'select_cols');
  let cols: string[] | undefined;
  if (rawCols !== undefined) {
    if (!Array.isArray(rawCols) || rawCols.some((c) => typeof c !== 'string'))
      throw fail(400, 'invalid_args', 'select_cols must be a JSON array of column names.');
    cols = rawCols.includes('*') ? undefined : (rawCols as string[]);
  }

  const matching = unfiltered ? [...rows] : rows.filter((r) => filters.every(([c, op, v]) => matches(op, value(r, c), v)));
  const cmp = (a: unknown[], b: unknown[]): number => {
    for (let i = 0; i < order.length; i++) {
      const c = compare(a[i], b[i]);
      if (c !== 0) return order[i]!.desc ? -c : c;
    }
    return 0;
  };
  const keyOf = (r: Row) => order.map((o) => value(r, o.col) ?? null);
  matching.sort((a, b) => cmp(keyOf(a), keyOf(b)));

  let rest = matching;
  const token = url.searchParams.get('after_token');
  if (token !== null && token !== '') {
    const after = decodeToken(token, order.length);
    rest = matching.filter((r) => cmp(keyOf(r), after) > 0);
  }
  const page = rest.slice(0, limit);
  const labelCounts: Record<string, number> = {};
  for (const r of matching) {
    const l = typeof r.label === 'string' ? r.label : '';
    labelCounts[l] = (labelCounts[l] ?? 0) + 1;
  }
  const out = page.map((p) => {
    const r = full(p);
    return cols ? Object.fromEntries(cols.map((c) => [c, c in r ? r[c] : null])) : r;
  });
  return {
    status: 200,
    body: {
      success: true,
      instances_found: out.length,
      total_instances: matching.length,
      // Counts over all matching rows are the same on every page: sent with the first page only.
      ...(token ? {} : { label_counts: labelCounts }),
      next_token: rest.length > limit ? encodeToken(keyOf(page[page.length - 1]!)) : null,
      instances: out,
    },
  };
}

/** The column set when there are no instances: the render of a throwaway record. */
function sampleless(state: SimState): Parameters<typeof renderInstance>[1] {
  const offer = state.offers[0] ?? ({ id: 0, gpu_name: '', num_gpus: 0, dph_total: 0, min_bid: 0, storage_cost: 0 } as never);
  return {
    id: 0,
    offer,
    label: null,
    image: '',
    runtype: ['ssh_proxy'],
    env: {},
    onstart: null,
    argsStr: null,
    disk: 8,
    intended: 'stopped',
    bootStart: 0,
    bootSeconds: 1,
    restarts: 0,
    failure: null,
    createdAt: 0,
    isBid: false,
    price: null,
    apiKey: '',
    jupyterToken: null,
    template: null,
    dockerLogin: null,
    useJupyterLab: false,
    jupyterDir: null,
    vm: false,
    volume: null,
    totalCost: 0,
    storageTotal: 0,
    everStarted: false,
    sshKeys: [],
  };
}
