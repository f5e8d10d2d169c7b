// Machines that bill without working: stopped instances whose disk keeps billing, interruptible
// instances another renter outbid, and contracts the host ends soon.
import type { Instance } from '../api/types';
import { formatMoney, formatRate, storageRate } from '../core/rates';
import { isOutbid } from '../core/instanceWords';
import { HOURS_PER_MONTH } from './priceIncreases';

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
  const so = s.storageSoFar !== undefined ? `, ${formatMoney(s.storageSoFar)} so far` : '';
  return {
    text: `storage ${formatMoney(s.perMonth)}/month${so}`,
    tooltip: `Stopped and created ${Math.floor(s.ageDays)} days ago: its disk still bills ${formatRate(storageRate(s.inst), 4)} (${formatMoney(s.perMonth)} a month)${s.storageSoFar !== undefined ? `, ${formatMoney(s.storageSoFar)} of storage so far` : ''}. Destroy it if you no longer need its data.`,
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
  return `The host's contract for ${name} ends ${date} UTC (in about ${Math.max(1, Math.round((endS - nowS) / 3600))} h). The machine is then taken back: save your work and data before then.`;
}
