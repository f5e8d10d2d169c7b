// Does an offer satisfy a template's offer filters? The one check behind "Rent This Offer"
// (a preselected offer is never rented outside its template without the user's yes) and
// behind marking which templates fit an offer. It judges the offer itself, so it does not
// matter on which page of which search the offer was seen.
import type { Offer } from '../api/types';
import { formatRate } from '../core/rates';
import { formatGpuRam } from '../core/instanceWords';
import type { Template } from './templateSchema';
import * as l10n from '@vscode/l10n';

/** Decimals (2 to 6) at which two rates read apart: "$0.504/h is above $0.500/h", not "$0.50/h is above $0.50/h". */
function apart(a: number, b: number): number {
  for (let d = 2; d < 6; d++) if (a.toFixed(d) !== b.toFixed(d)) return d;
  return 6;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Every filter of the template's `offer` block the offer fails, as sentences a user can read
 * ("price $23.28/h is above maxDphTotal $0.05/h"); empty when the offer fits. A field the offer
 * does not carry is not held against it, except where the filter cannot be judged without it.
 */
export function offerSatisfies(template: Template, offer: Offer): string[] {
  const f = template.offer ?? {};
  const out: string[] = [];
  // The exact price against the exact cap: never a price rounded to cents ($0.504/h is above $0.50/h).
  if (f.maxDphTotal !== undefined && !(offer.dph_total <= f.maxDphTotal)) {
    const d = apart(offer.dph_total, f.maxDphTotal);
    out.push(l10n.t('price {0} is above maxDphTotal {1}', formatRate(offer.dph_total, d), formatRate(f.maxDphTotal, d)));
  }
  if (f.type === 'bid' && f.bidPrice !== undefined && typeof offer.min_bid === 'number' && offer.min_bid > f.bidPrice)
    out.push(l10n.t('minimum bid {0} is above bidPrice {1}', formatRate(offer.min_bid), formatRate(f.bidPrice)));
  if (f.gpuNames && f.gpuNames.length) {
    const want = f.gpuNames.map((n) => n.trim().toLowerCase());
    if (!want.includes(offer.gpu_name.trim().toLowerCase())) out.push(l10n.t('GPU {0} is not in gpuNames ({1})', offer.gpu_name, f.gpuNames.join(', ')));
  }
  if (f.numGpus !== undefined && offer.num_gpus !== f.numGpus) out.push(l10n.t('{0} instead of numGpus {1}', plural(offer.num_gpus, 'GPU'), f.numGpus));
  if (f.minNumGpus !== undefined && offer.num_gpus < f.minNumGpus)
    out.push(l10n.t('{0}, fewer than minNumGpus {1}', plural(offer.num_gpus, 'GPU'), f.minNumGpus));
  if (f.minGpuRamGb !== undefined) {
    if (typeof offer.gpu_ram !== 'number') out.push(l10n.t('GPU memory is not known (minGpuRamGb {0})', f.minGpuRamGb));
    else if (offer.gpu_ram < Math.round(f.minGpuRamGb * 1000))
      out.push(l10n.t('{0} per GPU is below minGpuRamGb {1}', formatGpuRam(offer.gpu_ram) ?? '0 GB', f.minGpuRamGb));
  }
  if (f.minReliability !== undefined) {
    if (typeof offer.reliability !== 'number') out.push(l10n.t('reliability is not known (minReliability {0}%)', +(f.minReliability * 100).toFixed(2)));
    else if (offer.reliability < f.minReliability)
      out.push(l10n.t('reliability {0}% is below minReliability {1}%', (offer.reliability * 100).toFixed(1), +(f.minReliability * 100).toFixed(2)));
  }
  if ((f.verified ?? true) && offer.verified === false) out.push(l10n.t('the host is not verified (the template accepts verified hosts only)'));
  if ((f.rentable ?? true) && offer.rentable === false) out.push(l10n.t('the offer is not rentable right now'));
  if (f.minDirectPorts !== undefined) {
    const n = offer.direct_port_count;
    if (typeof n !== 'number') out.push(l10n.t('the number of direct ports is not known (minDirectPorts {0})', f.minDirectPorts));
    else if (n < f.minDirectPorts) out.push(l10n.t('{0}, below minDirectPorts {1}', plural(n, 'direct port'), f.minDirectPorts));
  }
  return out;
}
