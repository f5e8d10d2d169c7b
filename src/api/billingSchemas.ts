// zod/mini schemas of the billing calls (src/api/billingApi.ts): answers parsed tolerantly (a
// field of the wrong type is dropped, a row without its id or amount is left out and counted),
// the one request body validated strictly. Re-exported by schemas.ts, so they load with it.
import * as z from 'zod/mini';
import type { Charge, ChargeItem, Invoice, PendingPriceIncrease, PendingPriceIncreaseList, PriceIncreaseDecision } from './billingTypes';

const num = (v: unknown): number | undefined =>
  typeof v === 'number' ? (Number.isFinite(v) ? v : undefined) : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const posInt = (v: unknown): number | undefined => {
  const n = num(v);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
};
/** A date the service may send as epoch seconds, epoch ms or an ISO string: epoch seconds. */
export function epochSeconds(v: unknown): number | undefined {
  const n = num(v);
  if (n !== undefined) return n > 1e11 ? n / 1000 : n;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isFinite(t) ? t / 1000 : undefined;
  }
  return undefined;
}

const COST_FIELDS = [
  'old_gpu_costpersec',
  'new_gpu_costpersec',
  'old_disk_ram_costpersec',
  'new_disk_ram_costpersec',
  'old_bwu_cost',
  'new_bwu_cost',
  'old_bwd_cost',
  'new_bwd_cost',
  'old_platform_fee',
  'new_platform_fee',
] as const;

function increaseRow(w: Record<string, unknown>): PendingPriceIncrease | undefined {
  const id = posInt(w.pending_price_increase_id);
  const contract = posInt(w.contract_id);
  if (id === undefined || contract === undefined) return undefined;
  const r: PendingPriceIncrease = { pending_price_increase_id: id, contract_id: contract };
  const host = posInt(w.host_id);
  if (host !== undefined) r.host_id = host;
  for (const k of COST_FIELDS) {
    const n = num(w[k]);
    if (n !== undefined && n >= 0) r[k] = n;
  }
  for (const k of ['contract_end_date', 'ask_end_date', 'created_at'] as const) {
    const t = epochSeconds(w[k]);
    if (t !== undefined) r[k] = t;
  }
  return r;
}

const rows = z.catch(z.array(z.unknown()), []);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** GET /api/v0/instances/pending-price-increases/ (a bare array is accepted too). */
export const pendingPriceIncreasesSchema: z.ZodMiniType<PendingPriceIncreaseList> = z.pipe(
  z.union([z.looseObject({ pending_price_increases: rows, count: z.optional(z.unknown()), truncated: z.optional(z.unknown()) }), z.array(z.unknown())]),
  z.transform((w): PendingPriceIncreaseList => {
    const list = Array.isArray(w) ? w : w.pending_price_increases;
    const out = list.flatMap((x) => {
      const o = obj(x);
      const r = o && increaseRow(o);
      return r ? [r] : [];
    });
    const truncated = !Array.isArray(w) && w.truncated === true;
    return { count: out.length, truncated, pending_price_increases: out };
  }),
);

/** The accept/reject body: exactly one key (the service refuses any other with 400). */
export const priceIncreaseDecisionSchema: z.ZodMiniType<PriceIncreaseDecision> = z.strictObject({
  pending_price_increase_id: z.number('must be a number').check(z.int('must be a whole number'), z.positive('must be positive')),
});

function chargeItems(v: unknown): ChargeItem[] {
  // A list of {type, amount} or an object keyed by type (both seen in the CLI's printing code).
  if (Array.isArray(v))
    return v.flatMap((x) => {
      const o = obj(x);
      const amount = num(o?.amount);
      const type = str(o?.type) ?? str(o?.name);
      return o && amount !== undefined && type ? [{ type, amount, ...(str(o.description) ? { description: str(o.description)! } : {}) }] : [];
    });
  const o = obj(v);
  if (!o) return [];
  return Object.entries(o).flatMap(([type, x]) => {
    const amount = num(x) ?? num(obj(x)?.amount);
    return amount === undefined ? [] : [{ type, amount }];
  });
}

function chargeRow(w: Record<string, unknown>): Charge | undefined {
  const start = epochSeconds(w.start ?? w.day);
  const amount = num(w.amount);
  if (start === undefined || amount === undefined) return undefined;
  const end = epochSeconds(w.end) ?? start + 86400;
  const meta = obj(w.metadata);
  const r: Charge = { start, end, type: str(w.type) ?? 'unknown', source: str(w.source) ?? '', amount, items: chargeItems(w.items) };
  const d = str(w.description);
  if (d !== undefined) r.description = d;
  if (meta) {
    const m: NonNullable<Charge['metadata']> = {};
    if (typeof meta.label === 'string') m.label = meta.label;
    const t = posInt(meta.template_id);
    if (t !== undefined) m.template_id = t;
    r.metadata = m;
  }
  return r;
}

function invoiceRow(w: Record<string, unknown>): Invoice | undefined {
  const id = posInt(w.id);
  const when = epochSeconds(w.when ?? w.timestamp ?? w.start);
  const amount = num(w.amount);
  if (id === undefined || when === undefined || amount === undefined) return undefined;
  const r: Invoice = { id, when, service: str(w.service) ?? str(w.type) ?? 'unknown', amount };
  const d = str(w.description);
  if (d !== undefined) r.description = d;
  const s = str(w.source);
  if (s !== undefined) r.source = s;
  return r;
}

export interface Page<T> {
  results: T[];
  next_token?: string;
  total?: number;
  /** Rows that could not be read (left out). */
  skipped: number;
}

function pageOf<T>(row: (w: Record<string, unknown>) => T | undefined): z.ZodMiniType<Page<T>> {
  return z.pipe(
    z.looseObject({ results: rows, next_token: z.optional(z.unknown()), total: z.optional(z.unknown()) }),
    z.transform((w): Page<T> => {
      const results: T[] = [];
      let skipped = 0;
      for (const x of w.results) {
        const o = obj(x);
        const r = o && row(o);
        if (r) results.push(r);
        else skipped++;
      }
      const p: Page<T> = { results, skipped };
      if (typeof w.next_token === 'string' && w.next_token) p.next_token = w.next_token;
      const total = num(w.total);
      if (total !== undefined) p.total = total;
      return p;
    }),
  );
}

/** GET /api/v0/charges/ */
export const chargePageSchema = pageOf(chargeRow);
/** GET /api/v1/invoices/ */
export const invoicePageSchema = pageOf(invoiceRow);
