// What an instance costs per hour and how money reads: the rate words every feature uses (rows,
// pickers, warnings, the create flow, billing), low in the house so none imports the costs feature
// for them. Sums and credit (the status bar's) stay in src/costs/costs.ts.
import type { Instance, InstanceState } from '../api/types';
import * as l10n from '@vscode/l10n';

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

/** "as of 15:42": when a figure was read, in local hours and minutes. */
export function asOfText(atMs: number): string {
  const d = new Date(atMs);
  return l10n.t('as of {0}:{1}', String(d.getHours()).padStart(2, '0'), String(d.getMinutes()).padStart(2, '0'));
}

/** A group's cost so far (its members summed) and the sentence that says it, as an instance's "Cost so far: …". */
export interface GroupCost {
  amount: number;
  estimate: boolean;
  line: string;
}
