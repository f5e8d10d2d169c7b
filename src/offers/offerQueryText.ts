// What the Offers view says about a search without checking one: the defaults (as the official
// CLI: verified, rentable, best score first), the sort choices and the one-line summary. Apart from
// src/offers/offerQuery.ts so the activation bundle carries none of the query parser (zod, the CLI
// grammar): the offer store loads that with import() (dist/offerQuery.js).
import type { FilterOp, FilterValue, OfferFilters, OfferQuery } from '../api/types';

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

function describeFilters(filters: OfferFilters): string {
  const sym: Record<FilterOp, string> = { eq: '=', neq: '≠', gt: '>', gte: '≥', lt: '<', lte: '≤', in: ' in ', notin: ' not in ' };
  const parts: string[] = [];
  for (const [f, spec] of Object.entries(filters)) {
    for (const [op, v] of Object.entries(spec) as Array<[FilterOp, FilterValue]>)
      parts.push(`${f}${sym[op]}${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}`);
  }
  return parts.join(' ');
}

/** One line for the view description, e.g. "RTX 4090 · 1 GPU · ≥24 GB · verified · score". */
export function describeOfferQuery(q: OfferQuery): string {
  if (q.text) return q.text;
  if (q.filters) return describeFilters(q.filters) || 'all offers';
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
