// Orders search results for the pick list: cheapest first, or best value
// (deep-learning performance per dollar-hour). Offers above the template's
// price cap, or whose minimum bid is above the template's bid, are dropped.
import type { Offer } from '../api/types';
import { formatRate } from '../core/rates';

export type RankMode = 'cheapest' | 'best-value';

export interface RankOptions {
  rank?: RankMode;
  maxDphTotal?: number;
  /** For bid templates: offers whose min_bid exceeds it cannot be won and are dropped. */
  bidPrice?: number;
}

export function valueScore(o: Offer): number {
  if (typeof o.dlperf_per_dphtotal === 'number' && Number.isFinite(o.dlperf_per_dphtotal)) return o.dlperf_per_dphtotal;
  if (typeof o.dlperf === 'number' && o.dph_total > 0) return o.dlperf / o.dph_total;
  return 0;
}

export function rankOffers(offers: readonly Offer[], opts: RankOptions = {}): Offer[] {
  const kept = offers.filter((o) => {
    if (!Number.isFinite(o.dph_total)) return false;
    if (opts.maxDphTotal !== undefined && o.dph_total > opts.maxDphTotal) return false;
    if (opts.bidPrice !== undefined && typeof o.min_bid === 'number' && o.min_bid > opts.bidPrice) return false;
    return true;
  });
  const byReliability = (a: Offer, b: Offer) => (b.reliability ?? 0) - (a.reliability ?? 0);
  const cmp =
    opts.rank === 'best-value'
      ? (a: Offer, b: Offer) => valueScore(b) - valueScore(a) || a.dph_total - b.dph_total || byReliability(a, b) || a.id - b.id
      : (a: Offer, b: Offer) => a.dph_total - b.dph_total || byReliability(a, b) || valueScore(b) - valueScore(a) || a.id - b.id;
  return kept.sort(cmp);
}

/** One line for pick lists and confirmations: "2× RTX 4090 · $0.62/h · 99.1% · Sweden". */
export function describeOffer(o: Offer): string {
  const parts = [`${o.num_gpus}× ${o.gpu_name}`, formatRate(o.dph_total, 3)];
  if (typeof o.reliability === 'number') parts.push(`${(o.reliability * 100).toFixed(1)}% reliable`);
  if (o.geolocation) parts.push(o.geolocation);
  return parts.join(' · ');
}
