// Offer search: the response schema of one offer and the list, and the request side (an
// OfferQuery checked, then written as the service's search body).
import * as z from 'zod/mini';
import type { Offer, OfferQuery } from './offerTypes';
import { lbool, lnum, lstr, numberish, requiredInt } from './schemaBasics';
import * as l10n from '@vscode/l10n';

// ---------------------------------------------------------------- offers

export const offerSchema = z.pipe(
  // z.object, not looseObject: the transform keeps only these keys anyway, and not copying
  // the ~60 others an offer carries halves the parse time of a 1,000-offer list.
  z.object({
    id: requiredInt,
    num_gpus: requiredInt,
    gpu_name: z.string(),
    dph_total: numberish,
    gpu_ram: lnum,
    gpu_totalram: lnum,
    reliability: lnum,
    reliability2: lnum,
    verified: lbool,
    verification: lstr,
    rentable: lbool,
    direct_port_count: lnum,
    geolocation: lstr,
    dlperf: lnum,
    dlperf_per_dphtotal: lnum,
    score: lnum,
    min_bid: lnum,
    is_bid: lbool,
    cpu_cores_effective: lnum,
    cpu_name: lstr,
    cpu_ram: lnum,
    disk_space: lnum,
    inet_down: lnum,
    inet_up: lnum,
    cuda_max_good: lnum,
    machine_id: lnum,
    host_id: lnum,
    storage_cost: lnum,
    cluster_id: lnum,
  }),
  z.transform((w): Offer => {
    const { reliability2, ...rest } = w;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rest)) if (v !== undefined && k in offerKeys) out[k] = v;
    const o = out as unknown as Offer;
    if (o.reliability == null && reliability2 != null) o.reliability = reliability2;
    if (o.verified == null && typeof w.verification === 'string') o.verified = w.verification === 'verified';
    return o;
  }),
);
const offerKeys: Record<string, true> = Object.fromEntries(
  [
    'id',
    'num_gpus',
    'gpu_name',
    'dph_total',
    'gpu_ram',
    'gpu_totalram',
    'reliability',
    'verified',
    'verification',
    'rentable',
    'direct_port_count',
    'geolocation',
    'dlperf',
    'dlperf_per_dphtotal',
    'score',
    'min_bid',
    'is_bid',
    'cpu_cores_effective',
    'cpu_name',
    'cpu_ram',
    'disk_space',
    'inet_down',
    'inet_up',
    'cuda_max_good',
    'machine_id',
    'host_id',
    'storage_cost',
    'cluster_id',
  ].map((k) => [k, true]),
);

export const offerListSchema = z.compile(
  z.pipe(
    z.looseObject({ offers: z.array(offerSchema) }),
    z.transform((w): Offer[] => w.offers),
  ),
);

// ---------------------------------------------------------------- offer search body

export interface OfferSearchWire {
  [key: string]: unknown;
}

const FILTER_OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin']);
const FILTER_FIELD = /^[a-z_][a-z0-9_]*$/;
const FRIENDLY_FILTER_KEYS = [
  'gpuNames',
  'numGpus',
  'minNumGpus',
  'minGpuRamGb',
  'minReliability',
  'verified',
  'rentable',
  'minDirectPorts',
  'maxDphTotal',
] as const;

function filterProblems(filters: unknown): string[] {
  if (!filters || typeof filters !== 'object' || Array.isArray(filters)) return ['filters: must be an object of field: {operator: value}'];
  const p: string[] = [];
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
  for (const [field, spec] of Object.entries(filters as Record<string, unknown>)) {
    if (!FILTER_FIELD.test(field)) {
      p.push(l10n.t('filters.{0}: not a field name (lower-case letters, digits and _)', field));
      continue;
    }
    if (!spec || typeof spec !== 'object' || Array.isArray(spec) || !Object.keys(spec).length) {
      p.push(`filters.${field}: must be an object such as {"gte": 2}`);
      continue;
    }
    for (const [op, v] of Object.entries(spec as Record<string, unknown>)) {
      if (!FILTER_OPS.has(op)) p.push(l10n.t('filters.{0}.{1}: unknown operator (use eq, neq, gt, gte, lt, lte, in or notin)', field, op));
      else if (op === 'in' || op === 'notin') {
        if (!Array.isArray(v) || !v.length || !v.every(scalar)) p.push(l10n.t('filters.{0}.{1}: must be a non-empty list of values', field, op));
      } else if (!scalar(v)) p.push(l10n.t('filters.{0}.{1}: must be a number, string or true/false', field, op));
    }
  }
  return p;
}

/** Problems of an OfferQuery (empty when valid). */
export function validateOfferQuery(q: OfferQuery): string[] {
  const p: string[] = [];
  const nonNeg = (v: unknown, name: string) => {
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) p.push(l10n.t('{0}: must be a number of 0 or more', name));
  };
  nonNeg(q.minGpuRamGb, 'minGpuRamGb');
  nonNeg(q.maxDphTotal, 'maxDphTotal');
  nonNeg(q.minDirectPorts, 'minDirectPorts');
  nonNeg(q.allocatedStorage, 'allocatedStorage');
  for (const [k, v] of [
    ['numGpus', q.numGpus],
    ['minNumGpus', q.minNumGpus],
    ['limit', q.limit],
    ['offerId', q.offerId],
  ] as const)
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) p.push(l10n.t('{0}: must be a positive whole number', k));
  if (q.minReliability !== undefined && !(q.minReliability >= 0 && q.minReliability <= 1))
    p.push(l10n.t('minReliability: must be a fraction between 0 and 1 (for example 0.98)'));
  if (q.type !== undefined && q.type !== 'on-demand' && q.type !== 'bid') p.push(l10n.t("type: must be 'on-demand' or 'bid'"));
  if (q.gpuNames && q.gpuNames.some((n) => typeof n !== 'string' || !n.trim())) p.push(l10n.t('gpuNames: names must be non-empty'));
  if (q.order && q.order.some((o) => !Array.isArray(o) || typeof o[0] !== 'string' || (o[1] !== 'asc' && o[1] !== 'desc')))
    p.push(l10n.t("order: each entry must be [field, 'asc' | 'desc']"));
  if (q.filters !== undefined) {
    p.push(...filterProblems(q.filters));
    const mixed = FRIENDLY_FILTER_KEYS.filter((k) => q[k] !== undefined);
    if (mixed.length) p.push(l10n.t('filters: cannot be combined with {0}; put every condition in filters', mixed.join(', ')));
  }
  return p;
}

/** OfferQuery (GB, friendly names) -> the search body of POST /api/v0/bundles/. */
export function offerQueryToWire(q: OfferQuery): OfferSearchWire {
  let w: OfferSearchWire;
  if (q.filters) {
    // The service's own filter object is the whole filter: nothing implied is added.
    w = Object.fromEntries(Object.entries(q.filters).map(([f, spec]) => [f, { ...spec }]));
  } else {
    w = {
      verified: { eq: q.verified ?? true },
      rentable: { eq: q.rentable ?? true },
      external: { eq: false },
    };
    const names = (q.gpuNames ?? []).map((n) => n.trim()).filter(Boolean);
    if (names.length === 1) w.gpu_name = { eq: names[0] };
    else if (names.length > 1) w.gpu_name = { in: names };
    if (q.numGpus !== undefined) w.num_gpus = { eq: q.numGpus };
    else if (q.minNumGpus !== undefined) w.num_gpus = { gte: q.minNumGpus };
    // The service takes MB; GB are decimal here as in the official CLI.
    if (q.minGpuRamGb !== undefined) w.gpu_ram = { gte: Math.round(q.minGpuRamGb * 1000) };
    if (q.minReliability !== undefined) w.reliability = { gte: q.minReliability };
    if (q.minDirectPorts !== undefined) w.direct_port_count = { gte: q.minDirectPorts };
    if (q.maxDphTotal !== undefined) w.dph_total = { lte: q.maxDphTotal };
  }
  if (q.offerId !== undefined) w.id = { eq: q.offerId };
  // The official CLI's cluster_id!=None and cluster_id=N.
  if (q.clusterId !== undefined) w.cluster_id = q.clusterId === 'any' ? { neq: null } : { eq: q.clusterId };
  w.order = q.order && q.order.length ? q.order.map(([f, d]) => [f, d]) : [['score', 'desc']];
  w.type = q.type ?? 'on-demand';
  if (q.limit !== undefined) w.limit = q.limit;
  if (q.allocatedStorage !== undefined) w.allocated_storage = q.allocatedStorage;
  return w;
}
