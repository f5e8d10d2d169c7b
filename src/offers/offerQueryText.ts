// What the Offers view says about a search without checking one: the defaults (as the official
// CLI: verified, rentable, best score first), the sort choices and the one-line summary. Apart from
// src/offers/offerQuery.ts so the activation bundle carries none of the query parser (zod, the CLI
// grammar): the offer store loads that with import() (dist/offerQuery.js).
import type { FilterOp, FilterValue, OfferFilters, OfferQuery } from '../api/types';
import * as l10n from '@vscode/l10n';

const DEFAULTS: OfferQuery = {
  verified: true,
  rentable: true,
  type: 'on-demand',
  order: [['score', 'desc']],
  limit: 64,
};
export const DEFAULT_OFFER_QUERY: Readonly<OfferQuery> = Object.freeze(DEFAULTS);

type SortChoice = { label: string; order: Array<[string, 'asc' | 'desc']> };

/** A sort choice whose label is translated when it is read (the list is made when the module loads). */
const sortChoice = (label: () => string, order: SortChoice['order']): SortChoice => ({
  get label() {
    return label();
  },
  order,
});

export const SORT_CHOICES: readonly SortChoice[] = [
  sortChoice(() => l10n.t('Best score first'), [['score', 'desc']]),
  sortChoice(() => l10n.t('Cheapest first ($/h)'), [['dph_total', 'asc']]),
  sortChoice(() => l10n.t('Most DLPerf per $/h'), [['dlperf_per_dphtotal', 'desc']]),
  sortChoice(() => l10n.t('Most reliable first'), [['reliability', 'desc']]),
  sortChoice(() => l10n.t('Most GPU RAM first'), [['gpu_ram', 'desc']]),
];

function describeFilters(filters: OfferFilters): string {
  const sym: Record<FilterOp, string> = { eq: '=', neq: '≠', gt: '>', gte: '≥', lt: '<', lte: '≤', in: ' in ', notin: l10n.t(' not in ') };
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
  if (q.filters) return describeFilters(q.filters) || l10n.t('all offers');
  const parts: string[] = [];
  if (q.gpuNames?.length) parts.push(q.gpuNames.length > 2 ? `${q.gpuNames.length} models` : q.gpuNames.join(', '));
  if (q.numGpus !== undefined) parts.push(`${q.numGpus} GPU${q.numGpus === 1 ? '' : 's'}`);
  else if (q.minNumGpus !== undefined) parts.push(`≥${q.minNumGpus} GPUs`);
  if (q.minGpuRamGb !== undefined) parts.push(`≥${q.minGpuRamGb} GB`);
  if (q.minReliability !== undefined) parts.push(`≥${Math.round(q.minReliability * 100)}%`);
  if (q.minDirectPorts !== undefined) parts.push(`≥${q.minDirectPorts} ports`);
  if (q.type === 'bid') parts.push('interruptible');
  if (q.verified === false) parts.push(l10n.t('unverified too'));
  const sort = SORT_CHOICES.find((s) => JSON.stringify(s.order) === JSON.stringify(q.order));
  if (sort && sort !== SORT_CHOICES[0]) parts.push(sort.label.toLowerCase());
  return parts.join(' · ') || l10n.t('all verified offers');
}
