// The numeric settings: each with its default, floor and ceiling (package.json says the same:
// test/unit/core/settingBounds.test.ts), read through one function. A value out of range is
// clamped, so an interval of 1e9 s cannot overflow a timer (Node runs a delay above 2^31-1 ms
// after 1 ms: the list would be polled in a loop). The money reminders (low credit, stopped
// storage) take a workspace value only when it makes them stricter: a repository's
// .vscode/settings.json may warn earlier, never later, and never turn a reminder off.
import type { SettingInspection } from './userOnlySettings';

export interface Bounds {
  default: number;
  min: number;
  max: number;
  /** Whole numbers only (rounded down). */
  integer?: boolean;
}

// Longest delay a timer keeps (ms): Node and browsers fire a longer one after 1 ms.
/** @internal test */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** gpuRental.<key> → its bounds. Every interval ceiling stays far below MAX_TIMER_MS. */
export const SETTING_BOUNDS = {
  pollIntervalSeconds: { default: 10, min: 5, max: 3600 },
  hiddenPollIntervalSeconds: { default: 60, min: 5, max: 3600 },
  lowCreditWarningHours: { default: 12, min: 0, max: 720 },
  stoppedStorageDays: { default: 3, min: 0, max: 365 },
  createMaxAttempts: { default: 3, min: 1, max: 10, integer: true },
  'logs.tail': { default: 1000, min: 1, max: 100_000, integer: true },
  'logs.followIntervalSeconds': { default: 10, min: 3, max: 3600 },
  'budget.monthly': { default: 0, min: 0, max: 1_000_000 },
  'agent.maxPricePerHour': { default: 0, min: 0, max: 1_000_000 },
} as const satisfies Record<string, Bounds>;

export type BoundedSetting = keyof typeof SETTING_BOUNDS;

/** A value within the bounds: not a finite number → the default; out of range → the nearest bound. */
export function clampSetting(key: BoundedSetting, v: unknown): number {
  const b: Bounds = SETTING_BOUNDS[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) return b.default;
  const c = Math.min(b.max, Math.max(b.min, n));
  return b.integer ? Math.floor(c) : c;
}

/** The value VS Code would use (folder, else workspace, else user, else default), clamped. */
export function effectiveSetting(key: BoundedSetting, i: SettingInspection<unknown> | undefined): number {
  return clampSetting(key, i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue ?? i?.defaultValue);
}

/**
 * A reminder whose `0` turns it off, read so that a workspace only tightens it: the user's value
 * (else the default) counts; a workspace or folder value counts only when it is stricter
 * (`earlier`: a larger value warns earlier, `sooner`: a smaller one flags sooner) or turns an
 * off reminder on. A workspace `0` (off) is ignored.
 */
export function tightenOnly(key: BoundedSetting, i: SettingInspection<unknown> | undefined, stricter: 'larger' | 'smaller'): number {
  let v = clampSetting(key, i?.globalValue ?? i?.defaultValue);
  for (const raw of [i?.workspaceValue, i?.workspaceFolderValue]) {
    if (raw === undefined) continue;
    const w = clampSetting(key, raw);
    if (w === 0) continue;
    if (v === 0 || (stricter === 'larger' ? w > v : w < v)) v = w;
  }
  return v;
}
