// Which scope may set the idle guard's defaults. A repository's .vscode/settings.json (a
// workspace or folder value) may make the guard stricter: turn it on, a shorter idle time, a
// higher GPU threshold; it can never turn the guard off or loosen it. Only the user's own
// settings (and a template's `guard` block, in plain sight) can. No `vscode`.
import { DEFAULT_GUARD, type GuardDefaults } from './installed';

/** What `WorkspaceConfiguration.inspect` returns for one setting. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

const whole = (v: unknown, min: number, max: number): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined;

const workspaceValues = (i: Inspected | undefined): unknown[] => (i ? [i.workspaceValue, i.workspaceFolderValue].filter((v) => v !== undefined) : []);

export function guardDefaultsFrom(enabled: Inspected | undefined, idleMinutes: Inspected | undefined, gpuUtilBelow: Inspected | undefined): GuardDefaults {
  const userOn = typeof enabled?.globalValue === 'boolean' ? enabled.globalValue : DEFAULT_GUARD.enabled;
  let idle = whole(idleMinutes?.globalValue, 1, 10080) ?? DEFAULT_GUARD.idleMinutes;
  for (const v of workspaceValues(idleMinutes)) idle = Math.min(idle, whole(v, 1, 10080) ?? idle);
  let below = whole(gpuUtilBelow?.globalValue, 1, 100) ?? DEFAULT_GUARD.gpuUtilBelow;
  for (const v of workspaceValues(gpuUtilBelow)) below = Math.max(below, whole(v, 1, 100) ?? below);
  return { enabled: userOn || workspaceValues(enabled).includes(true), idleMinutes: idle, gpuUtilBelow: below };
}
