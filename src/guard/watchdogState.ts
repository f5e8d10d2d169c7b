// The watchdog's state.json as VS Code reads it (over SSH, src/guard/remote.ts). Loaded on the
// first read (dist/watchdogState.js), so zod stays out of the activation bundle for it.
import * as z from 'zod/mini';
import * as l10n from '@vscode/l10n';

const num = z.number();
const maybeNum = z.nullable(z.number());
const maybeStr = z.nullable(z.string());

/** state.json as watchdog.sh writes it (unknown keys are ignored, so newer scripts still parse). */
export const WatchdogStateSchema = z.object({
  version: num,
  startedAt: num,
  updatedAt: num,
  action: z.enum(['stop', 'destroy']),
  idleLimitSeconds: num,
  gpu: maybeStr,
  gpuUtil: maybeNum,
  sshSessions: num,
  heartbeatAgeSeconds: maybeNum,
  snoozedUntil: maybeNum,
  busyReason: maybeStr,
  idleSince: maybeNum,
  actAt: maybeNum,
  capAt: maybeNum,
  capReason: maybeStr,
  failures: num,
  nextRetryAt: maybeNum,
  lastError: maybeStr,
  doneAt: maybeNum,
  /** Seconds between two updates (older scripts: absent, 60). */
  tickSeconds: z.optional(num),
  /** The watchdog's process id (read, not needed: v1 wrote it too). */
  pid: z.optional(num),
  /** Version 2 on: established connections to Jupyter's port (jupyter runtypes). */
  jupyterConnections: z.optional(num),
  /** Version 2 on: "cannot see the GPU (nvidia-smi missing|failing|hanging)" on a GPU machine (it then counts as busy); null when it sees it. */
  gpuProblem: z.optional(maybeStr),
  /** Version 2 on: "cannot act: no curl, awk" when the image lacks what the guard needs (it then never acts on idleness). */
  cannotAct: z.optional(maybeStr),
  /** A group member's: "rank 1 of 3" (it shares its state with the group), or why it cannot ("cannot share its state (no python3)"). */
  group: z.optional(maybeStr),
});

export type WatchdogState = z.infer<typeof WatchdogStateSchema>;

/**
 * Version 2 is positional (it must fit in onstart): [2, pid, startedAt, updatedAt, action,
 * idleLimitSeconds, gpu, gpuUtil, ssh, jupyter, heartbeatAge, snoozedUntil, busyReason,
 * idleSince, capSeconds, capReason, failures, nextRetryAt, lastError, missingTools, doneAt, tick],
 * and a group member's adds its group word last; "" is none. A busy reason with an idle time is a
 * group member idle itself and held by the group ("group: rank 2 busy"): it does not act then. Version 3, [3, at, action], is what onstart writes when the watchdog could not even
 * be unpacked (no base64 or gzip).
 */
function fromArray(a: unknown[]): unknown {
  const str = (v: unknown) => (v === '' ? null : v);
  if (a[0] === 3 && a.length === 3) {
    const [, at, action] = a;
    return {
      version: 3,
      pid: 0,
      startedAt: at,
      updatedAt: at,
      action,
      idleLimitSeconds: 0,
      gpu: null,
      gpuUtil: null,
      sshSessions: 0,
      heartbeatAgeSeconds: null,
      snoozedUntil: null,
      busyReason: null,
      idleSince: null,
      actAt: null,
      capAt: null,
      capReason: null,
      failures: 0,
      nextRetryAt: null,
      lastError: null,
      doneAt: null,
      cannotAct: l10n.t('cannot act: no base64 or gzip on this image (the guard could not be unpacked)'),
      gpuProblem: null,
    };
  }
  if (a[0] !== 2 || (a.length !== 22 && a.length !== 23)) return undefined;
  const [
    ,
    pid,
    startedAt,
    updatedAt,
    action,
    idleLimitSeconds,
    gpu,
    gpuUtil,
    ssh,
    jupyter,
    hb,
    snoozed,
    busy,
    idleSince,
    capS,
    capWhy,
    failures,
    next,
    err,
    missing,
    doneAt,
    tick,
    group,
  ] = a;
  const note = str(gpu);
  return {
    version: 2,
    pid,
    startedAt,
    updatedAt,
    action,
    idleLimitSeconds,
    gpu: note,
    gpuUtil,
    sshSessions: ssh,
    jupyterConnections: jupyter,
    heartbeatAgeSeconds: hb,
    snoozedUntil: snoozed,
    busyReason: str(busy),
    idleSince,
    actAt: typeof idleSince === 'number' && typeof idleLimitSeconds === 'number' && !str(busy) ? idleSince + idleLimitSeconds : null,
    capAt: typeof capS === 'number' && capS > 0 && typeof startedAt === 'number' ? startedAt + capS : null,
    capReason: str(capWhy),
    failures,
    nextRetryAt: typeof failures === 'number' && failures > 0 ? next : null,
    lastError: str(err),
    cannotAct: typeof missing === 'string' && missing ? l10n.t('cannot act: no {0}', missing) : null,
    gpuProblem: note === 'missing' || note === 'failing' || note === 'hanging' ? l10n.t('cannot see the GPU (nvidia-smi {0})', String(note)) : null,
    doneAt,
    tickSeconds: tick,
    group: group === undefined ? null : str(group),
  };
}

/** The parsed state (version 1 objects, version 2 and 3 arrays), or undefined when the file has another shape. */
export function readWatchdogState(json: unknown): WatchdogState | undefined {
  const r = z.safeParse(WatchdogStateSchema, Array.isArray(json) ? fromArray(json) : json);
  return r.success ? r.data : undefined;
}
