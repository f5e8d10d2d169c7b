// Which idle guard an instance runs, read back from its onstart as the instance list returns
// it (small and free of the script itself, so the activation bundle can use it). No `vscode`.
import { gunzipSync } from 'node:zlib';

/** The service's limit on onstart (spec: Limits). */
export const ONSTART_LIMIT = 4048;

export type GuardAction = 'stop' | 'destroy';

/** The settings that apply to templates without a `guard` block (gpuRental.guard.*). */
export interface GuardDefaults {
  enabled: boolean;
  idleMinutes: number;
  gpuUtilBelow: number;
}

export const DEFAULT_GUARD: GuardDefaults = { enabled: true, idleMinutes: 30, gpuUtilBelow: 5 };

/** A guard.busyWhile entry: a plain part of a command line (matched literally; |-joined in the watchdog's environment). */
export const BUSY_WHILE_PATTERN = /^[A-Za-z0-9 ._/:=@+,%-]{2,80}$/;

/** guard.beforeStop: one line (it goes into the watchdog's environment on the launch line). */
export const BEFORE_STOP_PATTERN = /^[^\r\n\0]{1,500}$/;

/** guard.destroyAfterStoppedDays and its setting: whole days, at most a year. */
export const STOPPED_DAYS_MAX = 365;

/** A file in the guard's folder on the instance, as a double-quoted shell word. */
export const FILE = (name: string): string => `"\${TMPDIR:-/tmp}/gpu-rental/${name}"`;

/** The guard an instance's onstart installs, read back from the instance record. */
export interface InstalledGuard {
  idleMinutes: number;
  gpuUtilBelow: number;
  action: GuardAction;
  keepWhileSsh: boolean;
  capSeconds?: number;
  capWhy?: string;
  /** The template's guard.destroyAfterStoppedDays (VS Code acts on it; the watchdog does not). */
  destroyStoppedDays?: number;
}

const PACKED_ALL = /echo '([A-Za-z0-9+/=]{1,6000})' \| base64 -d \| gzip -dc >"\$\{TMPDIR:-\/tmp\}\/gpu-rental\/onstart\.sh"/;

/**
 * Reads which guard an onstart (as the instance list returns it) starts, or undefined when it
 * starts none: instances created elsewhere, or before the guard existed, have no watchdog.
 */
export function installedGuard(onstart: string | null | undefined): InstalledGuard | undefined {
  if (typeof onstart !== 'string' || onstart.length > 2 * ONSTART_LIMIT) return undefined;
  let text = onstart;
  const packedAll = PACKED_ALL.exec(text);
  if (packedAll) {
    try {
      text = gunzipSync(Buffer.from(packedAll[1]!, 'base64'), { maxOutputLength: 64 * 1024 }).toString('utf8');
    } catch {
      return undefined;
    }
  }
  const launch = text.split('\n').find((l) => l.includes(` nohup sh ${FILE('guard.sh')} `));
  if (!launch) return undefined;
  // The template's beforeStop (its own text) comes last on the line: only what precedes it is read.
  const own = launch.split(' GPU_GUARD_BEFORE_STOP=')[0]!;
  const val = (k: string) => new RegExp(`(?:^| )${k}='([^']*)'`).exec(own)?.[1];
  const int = (k: string) => {
    const v = val(k);
    return v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : undefined;
  };
  const g: InstalledGuard = {
    idleMinutes: int('GPU_GUARD_IDLE_MINUTES') ?? DEFAULT_GUARD.idleMinutes,
    gpuUtilBelow: int('GPU_GUARD_GPU_BELOW') ?? DEFAULT_GUARD.gpuUtilBelow,
    action: val('GPU_GUARD_ACTION') === 'destroy' ? 'destroy' : 'stop',
    keepWhileSsh: val('GPU_GUARD_KEEP_WHILE_SSH') !== '0',
  };
  const cap = int('GPU_GUARD_CAP_SECONDS');
  if (cap !== undefined) {
    g.capSeconds = cap;
    g.capWhy = val('GPU_GUARD_CAP_WHY') === 'maxSpend' ? 'maxSpend' : 'maxHours';
  }
  const stoppedDays = int('GPU_GUARD_DESTROY_STOPPED_DAYS');
  if (stoppedDays !== undefined && stoppedDays >= 1 && stoppedDays <= STOPPED_DAYS_MAX) g.destroyStoppedDays = stoppedDays;
  return g;
}
