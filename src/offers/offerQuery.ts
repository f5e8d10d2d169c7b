// The offer search the Offers view shows: the three forms a search may be given in (the documented
// object, the service's own filter object, a CLI query string), checked. Its own bundle
// (dist/offerQuery.js, loaded by the offer store with import()): the defaults and the summary line
// the view needs at once are in ./offerQueryText.
import * as z from 'zod/mini';
import type { FilterOp, FilterValue, OfferFilters, OfferQuery } from '../api/types';
import { QueryError, parseCliQuery } from './cliQuery';
import { DEFAULT_OFFER_QUERY } from './offerQueryText';
import * as l10n from '@vscode/l10n';

// Built when a search is checked (rarely), not when the module loads: constructing zod schemas is the
// costly part of loading the activation bundle. Not cached, so the module keeps no state and the
// Search Offers bundle may carry its own copy.
function offerQuerySchema() {
  const nonNegInt = z.number().check(z.int(), z.gte(0));
  return z.strictObject({
    gpuNames: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(50))),
    numGpus: z.optional(nonNegInt.check(z.gte(1), z.lte(64))),
    minNumGpus: z.optional(nonNegInt.check(z.lte(64))),
    minGpuRamGb: z.optional(z.number().check(z.gte(0), z.lte(10_000))),
    minReliability: z.optional(z.number().check(z.gte(0), z.lte(1))),
    verified: z.optional(z.boolean()),
    rentable: z.optional(z.boolean()),
    minDirectPorts: z.optional(nonNegInt.check(z.lte(65_535))),
    maxDphTotal: z.optional(z.number().check(z.gt(0))),
    type: z.optional(z.enum(['on-demand', 'bid'])),
    order: z.optional(z.array(z.tuple([z.string().check(z.minLength(1)), z.enum(['asc', 'desc'])])).check(z.maxLength(5))),
    limit: z.optional(nonNegInt.check(z.gte(1), z.lte(1000))),
    // A template's offer block may be passed as is: its ranking maps to an order,
    // its bid price matters only when renting.
    rank: z.optional(z.enum(['cheapest', 'best-value'])),
    bidPrice: z.optional(z.number()),
  });
}

export type QueryCheck =
  { ok: true; query: OfferQuery } | { ok: false; message: string; /** offsets of the offending token of a query string */ start?: number; end?: number };

const DOCUMENTED_KEYS = new Set([
  'gpuNames',
  'numGpus',
  'minNumGpus',
  'minGpuRamGb',
  'minReliability',
  'verified',
  'rentable',
  'minDirectPorts',
  'maxDphTotal',
  'type',
  'order',
  'limit',
  'rank',
  'bidPrice',
]);

/**
 * Validates a search given in any of its three forms, for the Offers view and `gpuRental.searchOffers`:
 * the documented object (`{ gpuNames: ["RTX 4090"], numGpus: 1 }`; missing keys take the defaults),
 * the service's own filter object (`{ "num_gpus": {"gte": 1}, "order": [["dph_total","asc"]] }`;
 * a bare value means eq) or a CLI query string (`num_gpus>=2 gpu_name=RTX_4090 dph<1.5`).
 */
export function parseOfferQuery(value: unknown): QueryCheck {
  if (typeof value === 'string') return parseQueryText(value);
  const saved = savedForm(value);
  if (saved) return saved;
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => !DOCUMENTED_KEYS.has(k))) {
    return parseServiceFilters(value as Record<string, unknown>);
  }
  const r = z.safeParse(offerQuerySchema(), value ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'filters';
    return {
      ok: false,
      message: `The offer filters are not valid (${where}: ${issue?.message ?? l10n.t('unexpected value')}). Use the keys of OfferQuery described in the README, e.g. { "gpuNames": ["RTX 4090"], "numGpus": 1 }.`,
    };
  }
  const { rank, bidPrice: _bid, ...query } = r.data;
  const q: OfferQuery = { ...query };
  if (!q.order && rank) q.order = rank === 'best-value' ? [['dlperf_per_dphtotal', 'desc']] : [['dph_total', 'asc']];
  return { ok: true, query: withDefaults(q) };
}

/** A CLI query string; the error names the token and its column. */
export function parseQueryText(text: string): QueryCheck {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, message: l10n.t('Type a query such as num_gpus>=2 gpu_name=RTX_4090 dph<1.5.'), start: 0, end: 0 };
  try {
    const c = parseCliQuery(text);
    const q: OfferQuery = { filters: c.filters, order: c.order, text: trimmed };
    if (c.type) q.type = c.type;
    if (c.limit !== undefined) q.limit = c.limit;
    if (c.allocatedStorage !== undefined) q.allocatedStorage = c.allocatedStorage;
    return { ok: true, query: withDefaults(q) };
  } catch (e) {
    if (e instanceof QueryError) return { ok: false, message: e.message, start: e.start, end: e.end };
    throw e;
  }
}

/** An OfferQuery this module produced (saved view state): re-checked, never trusted as is. */
function savedForm(value: unknown): QueryCheck | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.text === 'string') return parseQueryText(v.text);
  if (v.filters === undefined) return undefined;
  if (!v.filters || typeof v.filters !== 'object' || Array.isArray(v.filters)) return parseServiceFilters({ filters: v.filters });
  const { filters, allocatedStorage, ...rest } = v;
  return parseServiceFilters({ ...(filters as Record<string, unknown>), ...rest, allocated_storage: allocatedStorage });
}

const OP_NAMES: Readonly<Record<string, FilterOp>> = {
  eq: 'eq',
  neq: 'neq',
  ne: 'neq',
  gt: 'gt',
  gte: 'gte',
  lt: 'lt',
  lte: 'lte',
  in: 'in',
  notin: 'notin',
  nin: 'notin',
};
const SERVICE_FIELD = /^[a-z_][a-z0-9_]*$/;

function scalarOk(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** The service's own search body: {field: {op: value}} or {field: value} (eq), plus order/type/limit. */
function parseServiceFilters(obj: Record<string, unknown>): QueryCheck {
  const bad = (where: string, why: string): QueryCheck => ({
    ok: false,
    message: `The search filter object is not valid (${where}: ${why}). Use the service's form, e.g. {"num_gpus": {"gte": 1}, "gpu_name": {"in": ["RTX 4090"]}, "order": [["dph_total", "asc"]]}, or the documented keys such as {"gpuNames": ["RTX 4090"]}, not both.`,
  });
  const filters: OfferFilters = {};
  const q: OfferQuery = { filters };
  for (const [key, raw] of Object.entries(obj)) {
    if (raw === null || raw === undefined) continue; // the CLI sends unused fields as null
    if (key === 'order') {
      const pairs = Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' && !Array.isArray(raw[1]) ? [raw] : raw;
      if (!Array.isArray(pairs) || !pairs.length) return bad('order', l10n.t('must be a list of [field, "asc" | "desc"] pairs'));
      const order: Array<[string, 'asc' | 'desc']> = [];
      for (const pair of pairs as unknown[]) {
        if (
          !Array.isArray(pair) ||
          typeof pair[0] !== 'string' ||
          !SERVICE_FIELD.test(pair[0]) ||
          (pair[1] !== undefined && pair[1] !== 'asc' && pair[1] !== 'desc')
        )
          return bad('order', l10n.t('must be a list of [field, "asc" | "desc"] pairs'));
        order.push([pair[0], pair[1] === 'desc' ? 'desc' : 'asc']);
      }
      q.order = order;
    } else if (key === 'type') {
      if (raw === 'bid') q.type = 'bid';
      else if (raw === 'on-demand' || raw === 'ondemand') q.type = 'on-demand';
      else return bad('type', l10n.t('must be "on-demand" or "bid"'));
    } else if (key === 'limit') {
      const n = typeof raw === 'string' ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1000) return bad('limit', l10n.t('must be a whole number from 1 to 1000'));
      q.limit = n;
    } else if (key === 'allocated_storage') {
      const n = typeof raw === 'string' ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return bad('allocated_storage', l10n.t('must be a number of GB'));
      q.allocatedStorage = n;
    } else {
      if (!SERVICE_FIELD.test(key))
        return bad(key, DOCUMENTED_KEYS.has(key) ? l10n.t('a documented key cannot be mixed with service field names') : l10n.t('not a service field name'));
      if (scalarOk(raw)) filters[key] = { eq: raw };
      else if (Array.isArray(raw)) {
        if (!raw.length || !raw.every(scalarOk)) return bad(key, l10n.t('a list must hold numbers, strings or true/false'));
        filters[key] = { in: raw };
      } else if (typeof raw === 'object' && Object.keys(raw).length) {
        const spec: Partial<Record<FilterOp, FilterValue>> = {};
        for (const [opName, v] of Object.entries(raw as Record<string, unknown>)) {
          const op = OP_NAMES[opName];
          if (!op) return bad(`${key}.${opName}`, l10n.t('unknown operator; use eq, neq, gt, gte, lt, lte, in or notin'));
          if (v === null || v === undefined) continue;
          if (op === 'in' || op === 'notin') {
            if (!Array.isArray(v) || !v.length || !v.every(scalarOk)) return bad(`${key}.${opName}`, l10n.t('must be a non-empty list'));
            spec[op] = v;
          } else if (scalarOk(v)) spec[op] = v;
          else return bad(`${key}.${opName}`, l10n.t('must be a number, string or true/false'));
        }
        if (Object.keys(spec).length) filters[key] = spec;
      } else return bad(key, 'must be a value or an object such as {"gte": 2}');
    }
  }
  return { ok: true, query: withDefaults(q) };
}

export function withDefaults(q: OfferQuery): OfferQuery {
  // With the service's own filters, the friendly defaults (verified, rentable) would be ignored
  // on the wire and only mislead the summary: keep the defaults of order, type and limit alone.
  const { verified: _v, rentable: _r, ...general } = DEFAULT_OFFER_QUERY;
  const out: OfferQuery = { ...(q.filters ? general : DEFAULT_OFFER_QUERY), ...q };
  for (const k of Object.keys(out) as Array<keyof OfferQuery>) if (out[k] === undefined) delete out[k];
  return out;
}
