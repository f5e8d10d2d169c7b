// The seeded offer catalogue and the search filter language of POST /api/v0/bundles/.
import { between, mulberry32, pick, type Rng } from './prng';

export type OfferRecord = Record<string, unknown> & {
  id: number;
  gpu_name: string;
  num_gpus: number;
  dph_total: number;
  min_bid: number;
  storage_cost: number;
};

interface GpuModel {
  name: string;
  ramMb: number;
  arch: string;
  price: number; // $/h per GPU, on-demand
  dlperf: number; // per GPU
  tflops: number;
  memBw: number;
  cc: number;
}

const GPUS: GpuModel[] = [
  { name: 'RTX 3090', ramMb: 24576, arch: 'nvidia', price: 0.22, dlperf: 21, tflops: 35.6, memBw: 936, cc: 860 },
  { name: 'RTX 4090', ramMb: 24564, arch: 'nvidia', price: 0.4, dlperf: 38, tflops: 82.6, memBw: 1008, cc: 890 },
  { name: 'RTX 5090', ramMb: 32607, arch: 'nvidia', price: 0.7, dlperf: 52, tflops: 104.8, memBw: 1792, cc: 1200 },
  { name: 'A100 PCIE', ramMb: 40960, arch: 'nvidia', price: 0.8, dlperf: 55, tflops: 19.5, memBw: 1555, cc: 800 },
  { name: 'A100 SXM4', ramMb: 81920, arch: 'nvidia', price: 1.1, dlperf: 62, tflops: 19.5, memBw: 2039, cc: 800 },
  { name: 'H100 SXM', ramMb: 81559, arch: 'nvidia', price: 2.2, dlperf: 120, tflops: 67, memBw: 3350, cc: 900 },
  { name: 'H100 PCIE', ramMb: 81559, arch: 'nvidia', price: 1.9, dlperf: 100, tflops: 51, memBw: 2000, cc: 900 },
  { name: 'L40S', ramMb: 46068, arch: 'nvidia', price: 0.75, dlperf: 60, tflops: 91.6, memBw: 864, cc: 890 },
  { name: 'RTX A6000', ramMb: 49140, arch: 'nvidia', price: 0.45, dlperf: 30, tflops: 38.7, memBw: 768, cc: 860 },
  { name: 'RTX A4000', ramMb: 16376, arch: 'nvidia', price: 0.15, dlperf: 13, tflops: 19.2, memBw: 448, cc: 860 },
  { name: 'RTX 3060', ramMb: 12288, arch: 'nvidia', price: 0.08, dlperf: 8, tflops: 12.7, memBw: 360, cc: 860 },
];

const PLACES = [
  'US, CA',
  'US, TX',
  'US, NY',
  'US, WA',
  'Canada, QC',
  'Germany, DE',
  'Sweden, SE',
  'Norway, NO',
  'France, FR',
  'Netherlands, NL',
  'Poland, PL',
  'Japan, JP',
  'Taiwan, TW',
  'Australia, AU',
  'Brazil, BR',
];
const CPUS = [
  'AMD EPYC 7742 64-Core Processor',
  'AMD EPYC 9654 96-Core Processor',
  'Intel Xeon Gold 6338',
  'AMD Ryzen 9 7950X 16-Core Processor',
  'Intel Core i9-13900K',
  'AMD Ryzen Threadripper PRO 5975WX',
];
const MOBOS = ['ROMED8-2T', 'H12SSL-i', 'X13SWA-TF', 'PRIME X670E-PRO', 'WRX80E-SAGE'];
const COUNTS = [1, 1, 1, 2, 2, 4, 4, 8];

const r2 = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

function makeOffer(rng: Rng, i: number, fixed?: { gpu: string; n: number }): OfferRecord {
  const g = fixed ? GPUS.find((m) => m.name === fixed.gpu)! : pick(rng, GPUS);
  const n = fixed ? fixed.n : pick(rng, COUNTS);
  const machineId = 10000 + Math.floor(rng() * 40000);
  const perGpu = g.price * between(rng, 0.75, 1.35);
  const dphBase = r2(perGpu * n);
  const storageCost = r2(between(rng, 0.08, 0.3), 3); // $/GB/month
  const inetUpCost = r2(between(rng, 0, 0.01), 4);
  const dphTotal = r2(dphBase + (storageCost * 8) / 730);
  const minBid = r2(dphTotal * between(rng, 0.35, 0.7));
  const reliability = r2(Math.min(0.9999, between(rng, 0.88, 1.0)), 4);
  const verified = rng() > 0.15;
  const rentable = rng() > 0.05;
  const dlperf = r2(g.dlperf * n * between(rng, 0.85, 1.1), 2);
  const cores = pick(rng, [8, 16, 32, 48, 64, 128]);
  const eff = Math.max(2, Math.round(cores * between(rng, 0.3, 1) * (n / 8 + 0.2)));
  const directPorts = pick(rng, [0, 0, 2, 10, 50, 100, 200, 500]);
  const portStart = 10000 + Math.floor(rng() * 40000);
  const totalFlops = r2(g.tflops * n, 1);
  const pciGen = pick(rng, [3, 4, 4, 5]);
  const score = r2((dlperf / dphTotal) * reliability * (verified ? 1 : 0.7), 3);
  return {
    id: 1000000 + i * 37 + Math.floor(rng() * 30),
    ask_contract_id: 1000000 + i * 37,
    bundle_id: 500000 + i,
    machine_id: machineId,
    host_id: 1000 + Math.floor(rng() * 9000),
    hosting_type: rng() > 0.8 ? 1 : 0,
    gpu_name: g.name,
    num_gpus: n,
    gpu_ram: g.ramMb,
    gpu_totalram: g.ramMb * n,
    gpu_arch: g.arch,
    gpu_frac: 1,
    gpu_lanes: pick(rng, [8, 16]),
    gpu_mem_bw: r2(g.memBw * between(rng, 0.9, 1), 1),
    bw_nvlink: n > 1 && rng() > 0.5 ? 600 : 0,
    compute_cap: g.cc,
    cuda_max_good: pick(rng, [12.2, 12.4, 12.6, 12.8]),
    driver_version: pick(rng, ['550.120', '560.35.03', '570.86.15']),
    reliability,
    reliability2: reliability,
    verified,
    verification: verified ? 'verified' : 'unverified',
    rentable,
    rented: false,
    external: false,
    is_bid: false,
    direct_port_count: directPorts,
    direct_port_start: directPorts ? portStart : -1,
    direct_port_end: directPorts ? portStart + directPorts - 1 : -1,
    geolocation: pick(rng, PLACES),
    public_ipaddr: `198.51.100.${1 + Math.floor(rng() * 254)}`,
    static_ip: rng() > 0.5,
    dph_base: dphBase,
    dph_total: dphTotal,
    min_bid: minBid,
    storage_cost: storageCost,
    inet_up_cost: inetUpCost,
    inet_down_cost: inetUpCost,
    vram_costperhour: r2(dphBase / ((g.ramMb * n) / 1024), 6),
    dlperf,
    dlperf_per_dphtotal: r2(dlperf / dphTotal, 3),
    total_flops: totalFlops,
    flops_per_dphtotal: r2(totalFlops / dphTotal, 3),
    score,
    cpu_name: pick(rng, CPUS),
    cpu_arch: 'amd64',
    cpu_cores: cores,
    cpu_cores_effective: eff,
    cpu_ram: pick(rng, [32, 64, 128, 256, 512]) * 1024,
    disk_space: Math.round(between(rng, 50, 4000)),
    disk_bw: Math.round(between(rng, 500, 7000)),
    disk_name: pick(rng, ['Samsung SSD 980 PRO 2TB', 'WD_BLACK SN850X', 'INTEL SSDPE2KX040T8']),
    inet_up: Math.round(between(rng, 50, 5000)),
    inet_down: Math.round(between(rng, 100, 8000)),
    pci_gen: pciGen,
    pcie_bw: r2(pciGen * 3.1 * between(rng, 0.8, 1), 1),
    mobo_name: pick(rng, MOBOS),
    os_version: pick(rng, ['22.04', '24.04', '20.04']),
    duration: Math.round(between(rng, 3, 180) * 86400),
    end_date: null,
    start_date: null,
    logo: '/static/logos/nvidia.png',
    webpage: null,
    time_remaining: '',
    time_remaining_isbid: '',
    // Machines in a physical cluster (fast local networking) carry its id; most offers do not.
    cluster_id: null,
  };
}

/**
 * The physical clusters of the catalogue (service-today.md section 11): each holds enough
 * machines of one kind to rent a group of 8 on one overlay network. The first is cheap, so
 * tests and the demo can rent groups with the simulator's credit.
 */
export const CLUSTERS: ReadonlyArray<{ id: number; gpu: string; n: number; place: string; machines: number }> = [
  { id: 1201, gpu: 'RTX 4090', n: 1, place: 'US, TX', machines: 10 },
  { id: 1202, gpu: 'H100 SXM', n: 8, place: 'US, CA', machines: 10 },
  { id: 1203, gpu: 'A100 SXM4', n: 4, place: 'Germany, DE', machines: 10 },
];
const CLUSTER_MACHINES = CLUSTERS.reduce((s, c) => s + c.machines, 0);
/** A catalogue this big or bigger ends with the cluster offers (smaller ones, which tests seed on purpose, have none). */
export const CLUSTER_MIN_CATALOGUE = 100;

function clusterOffers(seed: number): OfferRecord[] {
  // Their own random stream: the catalogue's other offers stay exactly what they were.
  const rng = mulberry32(seed * 104729 + 1201);
  const out: OfferRecord[] = [];
  for (const [k, c] of CLUSTERS.entries()) {
    const hostId = 7000 + k;
    for (let j = 0; j < c.machines; j++) {
      const o = makeOffer(rng, 0, { gpu: c.gpu, n: c.n });
      const seq = k * 100 + j;
      const portStart = 20000 + seq * 200;
      Object.assign(o, {
        id: 3100000 + seq,
        ask_contract_id: 3100000 + seq,
        bundle_id: 900000 + seq,
        machine_id: 80000 + seq,
        host_id: hostId,
        geolocation: c.place,
        verified: true,
        verification: 'verified',
        rentable: true,
        reliability: 0.995,
        reliability2: 0.995,
        direct_port_count: 100,
        direct_port_start: portStart,
        direct_port_end: portStart + 99,
        cluster_id: c.id,
      });
      o.score = r2(((o.dlperf as number) / o.dph_total) * 0.995, 3);
      out.push(o);
    }
  }
  return out;
}

export function generateOffers(seed: number, count: number): OfferRecord[] {
  const rng = mulberry32(seed * 7919 + 17);
  const out: OfferRecord[] = [];
  const seen = new Set<number>();
  // The last offers of a full catalogue are the clusters' machines (the count stays exact).
  const clustered = count >= CLUSTER_MIN_CATALOGUE;
  const regular = clustered ? count - CLUSTER_MACHINES : count;
  for (let i = 0; out.length < regular; i++) {
    const o = makeOffer(rng, i);
    if (seen.has(o.id)) continue;
    seen.add(o.id);
    out.push(o);
  }
  return clustered ? [...out, ...clusterOffers(seed)] : out;
}

export class SearchError extends Error {}

const OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'notin']);
const NON_FILTER_KEYS = new Set(['order', 'type', 'limit', 'allocated_storage', 'disable_bundling', 'extra_ids', 'show_incompatible']);
/** Filter names the CLI sends for record fields spelled differently. */
const FILTER_ALIASES: Record<string, string> = { gpu_total_ram: 'gpu_totalram' };

/** Coerces a filter value to the type of the offer field ('2' -> 2, 'true' -> true). */
function coerce(value: unknown, like: unknown): unknown {
  if (typeof like === 'number' && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) {
    return Number(value);
  }
  if (typeof like === 'boolean' && typeof value === 'string') {
    if (value.toLowerCase() === 'true') return true;
    if (value.toLowerCase() === 'false') return false;
  }
  if (typeof like === 'boolean' && typeof value === 'number') return value !== 0;
  return value;
}

/** Equality, where a two-letter country code matches a geolocation such as 'Sweden, SE' (as the CLI's help says). */
function same(field: string, actual: unknown, v: unknown): boolean {
  if (actual === v) return true;
  return (
    field === 'geolocation' &&
    typeof actual === 'string' &&
    typeof v === 'string' &&
    /^[A-Za-z]{2}$/.test(v) &&
    actual.toUpperCase().endsWith(`, ${v.toUpperCase()}`)
  );
}

export function compare(op: string, actual: unknown, raw: unknown, field = ''): boolean {
  if (op === 'in' || op === 'nin' || op === 'notin') {
    if (!Array.isArray(raw)) throw new SearchError(`operator '${op}' needs an array`);
    const hit = raw.some((v) => same(field, actual, coerce(v, actual)));
    return op === 'in' ? hit : !hit;
  }
  if (raw === null) return (op === 'eq') === (actual === null || actual === undefined);
  const v = coerce(raw, actual);
  if (op === 'eq') return same(field, actual, v);
  if (op === 'neq') return !same(field, actual, v);
  if (actual === null || actual === undefined) return false;
  if (typeof actual !== typeof v) throw new SearchError(`cannot compare ${typeof actual} with ${typeof v}`);
  const a = actual as number | string;
  const b = v as number | string;
  if (op === 'gt') return a > b;
  if (op === 'gte') return a >= b;
  if (op === 'lt') return a < b;
  return a <= b; // lte
}

/**
 * Applies the search body to the catalogue. Throws SearchError on a malformed body. `priceStorage`:
 * dph_total includes the disk asked for; `noClusters`: a service without physical clusters (the
 * seed era), where cluster_id is an unknown field, neither filtered on nor shown.
 */
export function searchOffers(
  all: readonly OfferRecord[],
  body: Record<string, unknown>,
  opts: { priceStorage?: boolean; noClusters?: boolean } = {},
): OfferRecord[] {
  const typeRaw = body.type ?? 'on-demand';
  if (typeof typeRaw !== 'string' || !['on-demand', 'ondemand', 'bid', 'reserved'].includes(typeRaw)) {
    throw new SearchError(`type must be 'on-demand' or 'bid'`);
  }
  const bid = typeRaw === 'bid';
  const known = new Set(all.length ? Object.keys(all[0]!) : []);
  if (opts.noClusters) known.delete('cluster_id');
  const filters: Array<[string, string, unknown]> = [];
  for (const [name, spec] of Object.entries(body)) {
    const field = FILTER_ALIASES[name] ?? name;
    if (NON_FILTER_KEYS.has(field) || spec === null || spec === undefined) continue;
    if (!known.has(field)) continue; // unknown fields are ignored, as the real service does
    if (typeof spec === 'object' && !Array.isArray(spec)) {
      for (const [op, val] of Object.entries(spec as Record<string, unknown>)) {
        if (!OPS.has(op)) throw new SearchError(`unknown operator '${op}' on ${field}`);
        if (val === undefined) continue;
        // `field=None` / `field!=None` (the CLI sends null): whether the field is set at all.
        if (val === null && op !== 'eq' && op !== 'neq') continue;
        filters.push([field, op, val]);
      }
    } else {
      filters.push([field, 'eq', spec]);
    }
  }
  let rows = all.filter((o) => !o.rented && !o.taken);
  if (opts.priceStorage) {
    // The live service quotes dph_total with the disk asked for (allocated_storage GB, default 8).
    const raw = body.allocated_storage ?? 8;
    const gb = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof gb !== 'number' || !Number.isFinite(gb) || gb <= 0) throw new SearchError('allocated_storage must be a positive number of GB');
    rows = rows.map((o) => ({ ...o, dph_total: r2((o.dph_base as number) + (o.storage_cost * gb) / 730), allocated_storage: gb }));
  }
  rows = rows.map((o) => (bid ? { ...o, dph_total: o.min_bid, is_bid: true } : o));
  rows = rows.filter((o) => filters.every(([f, op, v]) => compare(op, o[f], v, f)));

  let order: Array<[string, string]> = [['score', 'desc']];
  if (body.order !== undefined && body.order !== null) {
    if (!Array.isArray(body.order)) throw new SearchError('order must be a list of [field, direction] pairs');
    order = body.order.map((p: unknown) => {
      if (typeof p === 'string') return [p, 'asc'] as [string, string];
      if (!Array.isArray(p) || typeof p[0] !== 'string') throw new SearchError('order must be a list of [field, direction] pairs');
      return [p[0], typeof p[1] === 'string' ? p[1] : 'asc'] as [string, string];
    });
  }
  rows.sort((a, b) => {
    for (const [f, dir] of order) {
      const x = a[f] as number | string | null | undefined;
      const y = b[f] as number | string | null | undefined;
      if (x === y) continue;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const c = x < y ? -1 : 1;
      return dir.toLowerCase() === 'desc' ? -c : c;
    }
    return a.id - b.id;
  });
  let limit = 64;
  if (body.limit !== undefined && body.limit !== null) {
    const n = Number(body.limit);
    if (!Number.isInteger(n) || n < 0) throw new SearchError('limit must be a non-negative integer');
    limit = n;
  }
  return rows.slice(0, limit).map(({ rented: _r, taken: _t, ...rest }) => {
    if (opts.noClusters) delete rest.cluster_id;
    return rest as OfferRecord;
  });
}
