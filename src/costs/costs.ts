// Cost math for the status bar, tooltips and the low-credit warning.
import type { Instance } from '../api/types';
import { currentRate, isBilledForCompute } from '../core/rates';

export interface CostSummary {
  /** Sum of current rates: compute of active instances + storage of the others. */
  totalPerHour: number;
  /** Sum of current rates of instances billed for compute (running, loading, …). */
  activePerHour: number;
  /** Storage of stopped/failed instances. */
  idleStoragePerHour: number;
  running: number;
  active: number;
  stopped: number;
  credit: number | undefined;
  /** Hours the credit lasts at totalPerHour (undefined without credit or spend). */
  hoursLeft: number | undefined;
}

/**
 * `serviceRate`: the account's $/h as the service reports it (users/spend-rate, stopped disks and
 * volumes included); it is the total, and what the credit's hours are counted at, where known.
 */
export function summarizeCosts(instances: readonly Instance[], credit: number | undefined, serviceRate?: number): CostSummary {
  let activePerHour = 0;
  let idleStoragePerHour = 0;
  let running = 0;
  let active = 0;
  let stopped = 0;
  for (const i of instances) {
    if (isBilledForCompute(i)) {
      activePerHour += currentRate(i);
      active++;
      if (i.state === 'running') running++;
    } else {
      idleStoragePerHour += currentRate(i);
      stopped++;
    }
  }
  const totalPerHour = serviceRate ?? activePerHour + idleStoragePerHour;
  return {
    totalPerHour,
    activePerHour,
    idleStoragePerHour,
    running,
    active,
    stopped,
    credit,
    hoursLeft: hoursOfCreditLeft(credit, totalPerHour),
  };
}

export function hoursOfCreditLeft(credit: number | undefined, perHour: number): number | undefined {
  if (credit === undefined || !Number.isFinite(credit)) return undefined;
  if (perHour <= 0) return undefined;
  return Math.max(0, credit) / perHour;
}

export function formatHours(h: number): string {
  if (h < 1) return `${Math.max(0, Math.round(h * 60))} min`;
  if (h < 48) return `${h.toFixed(h < 10 ? 1 : 0)} h`;
  return `${(h / 24).toFixed(1)} days`;
}

/** True when the credit runs out within `thresholdHours` at the current spend (0 disables). */
export function isCreditLow(s: CostSummary, thresholdHours: number): boolean {
  return thresholdHours > 0 && s.hoursLeft !== undefined && s.hoursLeft < thresholdHours;
}
