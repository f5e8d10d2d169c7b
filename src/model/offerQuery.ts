// The offer search the Offers view shows: defaults (as the official CLI: verified,
// rentable, best score first), validation of a scripted filters object, a summary line.
import * as z from 'zod/mini';
import type { OfferQuery } from '../api/types';

const DEFAULTS: OfferQuery = {
  verified: true,
  rentable: true,
  type: 'on-demand',
  order: [['score', 'desc']],
  limit: 64,
};
export const DEFAULT_OFFER_QUERY: Readonly<OfferQuery> = Object.freeze(DEFAULTS);

export const SORT_CHOICES: ReadonlyArray<{ label: string; order: Array<[string, 'asc' | 'desc']> }> = [
  { label: 'Best score first', order: [['score', 'desc']] },
  { label: 'Cheapest first ($/h)', order: [['dph_total', 'asc']] },
  { label: 'Most DLPerf per $/h', order: [['dlperf_per_dphtotal', 'desc']] },
  { label: 'Most reliable first', order: [['reliability', 'desc']] },
  { label: 'Most GPU RAM first', order: [['gpu_ram', 'desc']] },
];

// Built on first use: constructing zod schemas is the costly part of loading the activation bundle.
let offerQuerySchemaCache: ReturnType<typeof buildOfferQuerySchema> | undefined;
function buildOfferQuerySchema() {
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
const offerQuerySchema = () => (offerQuerySchemaCache ??= buildOfferQuerySchema());

export type QueryCheck = { ok: true; query: OfferQuery } | { ok: false; message: string };

/** Validates a filters object (command argument, saved state); missing keys take the defaults. */
export function parseOfferQuery(value: unknown): QueryCheck {
  const r = z.safeParse(offerQuerySchema(), value ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'filters';
    return {
      ok: false,
      message: `The offer filters are not valid (${where}: ${issue?.message ?? 'unexpected value'}). Use the keys of OfferQuery described in the README, e.g. { "gpuNames": ["RTX 4090"], "numGpus": 1 }.`,
    };
  }
  const { rank, bidPrice: _bid, ...query } = r.data;
  const q: OfferQuery = { ...query };
  if (!q.order && rank) q.order = rank === 'best-value' ? [['dlperf_per_dphtotal', 'desc']] : [['dph_total', 'asc']];
  return { ok: true, query: withDefaults(q) };
}

export function withDefaults(q: OfferQuery): OfferQuery {
  const out: OfferQuery = { ...DEFAULT_OFFER_QUERY, ...q };
  for (const k of Object.keys(out) as Array<keyof OfferQuery>) if (out[k] === undefined) delete out[k];
  return out;
}

/** One line for the view description, e.g. "RTX 4090 · 1 GPU · ≥24 GB · verified · score". */
export function describeOfferQuery(q: OfferQuery): string {
  const parts: string[] = [];
  if (q.gpuNames?.length) parts.push(q.gpuNames.length > 2 ? `${q.gpuNames.length} models` : q.gpuNames.join(', '));
  if (q.numGpus !== undefined) parts.push(`${q.numGpus} GPU${q.numGpus === 1 ? '' : 's'}`);
  else if (q.minNumGpus !== undefined) parts.push(`≥${q.minNumGpus} GPUs`);
  if (q.minGpuRamGb !== undefined) parts.push(`≥${q.minGpuRamGb} GB`);
  if (q.minReliability !== undefined) parts.push(`≥${Math.round(q.minReliability * 100)}%`);
  if (q.minDirectPorts !== undefined) parts.push(`≥${q.minDirectPorts} ports`);
  if (q.type === 'bid') parts.push('interruptible');
  if (q.verified === false) parts.push('unverified too');
  const sort = SORT_CHOICES.find((s) => JSON.stringify(s.order) === JSON.stringify(q.order));
  if (sort && sort !== SORT_CHOICES[0]) parts.push(sort.label.toLowerCase());
  return parts.join(' · ') || 'all verified offers';
}
