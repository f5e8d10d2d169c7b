// The watchdog's state.json as VS Code reads it (over SSH, src/guard/remote.ts). Loaded on the
// first read (dist/watchdogState.js), so zod stays out of the activation bundle for it.
import * as z from 'zod/mini';

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
});

export type WatchdogState = z.infer<typeof WatchdogStateSchema>;

/** The parsed state, or undefined when the file has another shape. */
export function readWatchdogState(json: unknown): WatchdogState | undefined {
  const r = z.safeParse(WatchdogStateSchema, json);
  return r.success ? r.data : undefined;
}
