// Machines that bill without working: stopped instances whose disk keeps billing, interruptible
// instances another renter outbid, and contracts the host ends soon.
import type { Instance } from '../api/types';
import { formatMoney, formatRate, storageRate } from '../core/rates';
import { isOutbid } from '../core/instanceWords';
import { HOURS_PER_MONTH } from './priceIncreases';
import * as l10n from '@vscode/l10n';

export const WEEK_MS = 7 * 24 * 3600 * 1000;
export const CONTRACT_END_WARN_S = 48 * 3600;

export interface StaleStopped {
  inst: Instance;
  ageDays: number;
  /** Dollars of storage billed so far, when known (the service's figure or its charges). */
  storageSoFar: number | undefined;
  perMonth: number;
}

/** Stopped (by the user, not outbid) instances created more than `days` days ago. */
export function staleStopped(
  instances: readonly Instance[],
  days: number,
  nowS: number,
  storageFromCharges?: (id: number) => number | undefined,
): StaleStopped[] {
  if (!(days > 0)) return [];
  return instances.flatMap((i) => {
    if (i.state !== 'stopped' || isOutbid(i) || typeof i.start_date !== 'number') return [];
    const ageDays = (nowS - i.start_date) / 86400;
    if (ageDays < days) return [];
    const so = typeof i.storage_total_cost === 'number' ? i.storage_total_cost : storageFromCharges?.(i.id);
    return [{ inst: i, ageDays, storageSoFar: so, perMonth: storageRate(i) * HOURS_PER_MONTH }];
  });
}

/** The row's mark: "stopped 5 d, storage $0.42 so far · $3.10/month". */
export function staleMark(s: StaleStopped): { text: string; tooltip: string } {
  const so = s.storageSoFar !== undefined ? l10n.t(', {0} so far', formatMoney(s.storageSoFar)) : '';
  return {
    text: l10n.t('storage {0}/month{1}', formatMoney(s.perMonth), so),
    tooltip: l10n.t(
      'Stopped and created {0} days ago: its disk still bills {1} ({2} a month){3}. Destroy it if you no longer need its data.',
      Math.floor(s.ageDays),
      formatRate(storageRate(s.inst), 4),
      formatMoney(s.perMonth),
      s.storageSoFar !== undefined ? l10n.t(', {0} of storage so far', formatMoney(s.storageSoFar)) : '',
    ),
  };
}

/** Whether the weekly reminder is due (never shown, or a week ago). */
export function reminderDue(lastMs: number | undefined, nowMs: number): boolean {
  return lastMs === undefined || nowMs - lastMs >= WEEK_MS;
}

/** Outbid instances not told about yet. */
export function newlyOutbid(instances: readonly Instance[], told: ReadonlySet<number>): Instance[] {
  return instances.filter((i) => isOutbid(i) && !told.has(i.id));
}

/** Instances whose host contract ends within 48 h (and has not ended), not told about yet. */
export function contractsEndingSoon(instances: readonly Instance[], nowS: number, told: ReadonlySet<number>): Instance[] {
  return instances.filter((i) => typeof i.end_date === 'number' && i.end_date > nowS && i.end_date - nowS <= CONTRACT_END_WARN_S && !told.has(i.id));
}

export function contractEndMessage(name: string, endS: number, nowS: number): string {
  const date = new Date(endS * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return l10n.t(
    "The host's contract for {0} ends {1} UTC (in about {2} h). The machine is then taken back: save your work and data before then.",
    name,
    date,
    Math.max(1, Math.round((endS - nowS) / 3600)),
  );
}
