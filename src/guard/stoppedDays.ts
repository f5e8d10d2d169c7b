// Stopped disks end: with gpuRental.guard.destroyAfterStoppedDays set (off by default), an
// instance with an idle guard that stayed stopped that many days is destroyed, after a warning a
// day before with Keep. A stopped machine's watchdog does not run, so VS Code does this while it
// runs, from when it first saw the instance stopped (never earlier than the real stop: a stop
// seen late only gives more time). Only instances created here with a guard are considered (the
// setting is the user's standing consent for those; a template's guard.destroyAfterStoppedDays,
// carried by the instance, replaces it for its own instances), and never one without a day's
// warning shown in this VS Code. The decisions, on plain records; no `vscode`.
import type { Instance } from '../api/types';
import { STOPPED_DAYS_MAX, installedGuard } from './installed';

export const DAY_MS = 24 * 3600_000;

/** What VS Code remembers per instance id. */
export interface StoppedRecord {
  /** First seen stopped (ms), or when Keep was chosen. */
  since: number;
  /** The warning a day before was shown (ms). */
  warnedAt?: number;
}

export type StoppedRecords = Record<string, StoppedRecord>;

export interface StoppedPlan {
  records: StoppedRecords;
  /** Warn now: destroyed in a day unless kept. */
  warn: Array<{ inst: Instance; destroyAt: number; /** How long it has been stopped (as seen here). */ stoppedMs: number }>;
  /** Destroy now (after a fresh check that it is still stopped). */
  destroy: Instance[];
}

/** The setting as a whole number of days within its bounds; 0 (off) for anything else. */
export function stoppedDaysSetting(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.min(STOPPED_DAYS_MAX, Math.floor(v)) : 0;
}

/** When the instance is destroyed: `days` after its stop, and never sooner than a day after its warning. */
export function destroyAt(r: StoppedRecord, days: number): number {
  return r.warnedAt === undefined ? Number.POSITIVE_INFINITY : Math.max(r.since + days * DAY_MS, r.warnedAt + DAY_MS);
}

/**
 * The days after which this stopped instance is destroyed: its template's
 * guard.destroyAfterStoppedDays where it was rented with one (the Rent confirmation stated it, so
 * renting was the consent, and it wins either way: it is the owner's intent for that machine),
 * else the user setting (`setting`, 0 for off). `own` says which, for the messages.
 */
export function stoppedDaysFor(inst: Instance, setting: number): { days: number; own: boolean } {
  const own = installedGuard(inst.onstart)?.destroyStoppedDays;
  return own !== undefined ? { days: own, own: true } : { days: setting, own: false };
}

/**
 * One look at the list: records start when a guarded instance is first seen stopped and end when
 * it runs again; instances not in the list keep theirs (not listed is no proof it is gone).
 */
export function planStopped(instances: readonly Instance[], records: StoppedRecords, setting: number, now: number): StoppedPlan {
  const next: StoppedRecords = { ...records };
  const plan: StoppedPlan = { records: next, warn: [], destroy: [] };
  for (const inst of instances) {
    const key = String(inst.id);
    const stopped = inst.state === 'stopped' && installedGuard(inst.onstart) !== undefined;
    if (!stopped) {
      delete next[key];
      continue;
    }
    const r = (next[key] ??= { since: now });
    const { days } = stoppedDaysFor(inst, setting);
    if (!(days > 0)) continue;
    if (r.warnedAt === undefined) {
      if (now >= r.since + (days - 1) * DAY_MS) {
        next[key] = { ...r, warnedAt: now };
        plan.warn.push({ inst, destroyAt: destroyAt(next[key], days), stoppedMs: now - r.since });
      }
    } else if (now >= destroyAt(r, days)) plan.destroy.push(inst);
  }
  return plan;
}

/** Keep: another full period from now, with a new warning a day before its end. */
export function keep(records: StoppedRecords, id: number, now: number): StoppedRecords {
  return { ...records, [String(id)]: { since: now } };
}
