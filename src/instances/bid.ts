// Interruptible instances: the bid they run at, the service's minimum, and "outbid" (the
// service stopped the instance while its renter wants it running, because someone bid more).
import type { Instance } from '../api/types';
import { isInterruptible } from '../core/instanceWords';
import * as l10n from '@vscode/l10n';

/** The current bid in $/h: an interruptible instance's compute price is its bid. */
export function currentBid(i: Instance): number | undefined {
  if (!isInterruptible(i)) return undefined;
  const b = i.dph_base ?? i.search?.gpuCostPerHour;
  return typeof b === 'number' && b > 0 ? b : undefined;
}

export const MAX_BID = 1000;

/** The bid a user typed, or why it cannot be sent. `minBid` is the offer's current minimum. */
export function parseBid(text: string, minBid: number | undefined): { ok: true; price: number } | { ok: false; message: string } {
  const t = text
    .trim()
    .replace(/^\$/, '')
    .replace(/\s*(\/\s*h(our)?)?$/i, '');
  if (!t) return { ok: false, message: l10n.t('Enter a price in dollars per hour, e.g. 0.35.') };
  if (!/^\d*\.?\d+$/.test(t)) return { ok: false, message: l10n.t("'{0}' is not a price: enter dollars per hour, e.g. 0.35.", text.trim()) };
  const price = Number(t);
  if (!(price > 0)) return { ok: false, message: l10n.t('The bid must be more than $0/h.') };
  if (price > MAX_BID) return { ok: false, message: l10n.t('The bid must be at most ${0}/h.', MAX_BID) };
  if (minBid !== undefined && price < minBid)
    return { ok: false, message: l10n.t('The minimum bid for this machine is now ${0}/h: bid at least that, or the instance stays stopped.', minBid) };
  return { ok: true, price };
}
