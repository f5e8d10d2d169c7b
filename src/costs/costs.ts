// Cost math for the status bar, tooltips and the low-credit warning.
import type { Instance, InstanceState } from '../api/types';

/** States in which only storage is billed (stopped by the user, or failed). */
const STORAGE_ONLY: ReadonlySet<InstanceState> = new Set(['stopped', 'exited', 'unknown', 'offline', 'frozen']);

export function isBilledForCompute(i: Instance): boolean {
  return !STORAGE_ONLY.has(i.state);
}

function num(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Storage $/h of an instance (billed in every state until destroyed). */
export function storageRate(i: Instance): number {
  // While stopped dph_total is unchanged on the wire; the storage-only rate is instance.totalHour.
  if (!isBilledForCompute(i)) {
    return num(i.instance?.totalHour) ?? num(i.storage_cost) ?? num(i.instance?.diskHour) ?? 0;
  }
  return num(i.storage_cost) ?? num(i.instance?.diskHour) ?? 0;
}

/** What the instance costs per hour right now. */
export function currentRate(i: Instance): number {
  if (!isBilledForCompute(i)) return storageRate(i);
  return num(i.dph_total) ?? num(i.instance?.totalHour) ?? 0;
}

/** The compute part of the current rate (0 while stopped). */
export function computeRate(i: Instance): number {
  return Math.max(0, currentRate(i) - (isBilledForCompute(i) ? storageRate(i) : currentRate(i)));
}

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

/** `$1.84/h`; offer prices pass 3 decimals, where cents hide the difference between offers. */
export function formatRate(perHour: number, decimals = 2): string {
  // A storage-only rate such as $0.003/h must not read as free.
  const smallest = 10 ** -decimals;
  if (perHour > 0 && perHour < smallest / 2) return `<$${smallest.toFixed(decimals)}/h`;
  return `$${perHour.toFixed(decimals)}/h`;
}

export function formatMoney(amount: number): string {
  return `${amount < 0 ? '-' : ''}$${Math.abs(amount).toFixed(2)}`;
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
