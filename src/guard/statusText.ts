// The words the Instances row and its tooltip use for a watchdog's state: what it is doing,
// when it acts, and, when it stopped reporting, what to do. Raw errors never reach these
// texts (they go to the log). No `vscode`.
import type { InstalledGuard } from './installed';
import type { WatchdogState } from './watchdogState';

/** One read of the instance: its state file (if any), our clock and the instance's at that moment. */
export interface Reading {
  state?: WatchdogState;
  /** Local ms when read. */
  readAt: number;
  /** The instance's clock then (epoch seconds). */
  remoteNow: number;
  /** The last lines of guard.log. */
  log?: string;
}

/** Seconds without an update after which a watchdog counts as not reporting (3 of its ticks and a minute). */
export function staleAfterSeconds(s: WatchdogState): number {
  return 3 * (s.tickSeconds ?? 60) + 60;
}

/** The state is recent by the instance's own clock (not by when we read it: an old file stays on disk). */
export function reporting(r: Reading): boolean {
  return !!r.state && r.remoteNow - r.state.updatedAt <= staleAfterSeconds(r.state);
}

export function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

const mins = (ms: number) => Math.max(0, Math.floor(ms / 60_000));
const ago = (ms: number) => (ms < 60_000 ? 'just now' : `${mins(ms)} min ago`);

/** Remote epoch seconds → local ms, through the moment of the read. */
export function localTime(r: Reading): (epoch: number) => number {
  const skew = r.readAt - r.remoteNow * 1000;
  return (epoch) => epoch * 1000 + skew;
}

/** An idle limit in words: "30 min", or "15 s" below a minute (a test's or a demo's guard). */
export function durationWords(seconds: number): string {
  return seconds < 60 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

/** "3 of 30 min" (or "5 of 15 s" below a minute): the row, the tooltip and the warning say it alike. */
export function idleProgress(idleMs: number, limitSeconds: number): string {
  const limit = limitSeconds;
  return limit < 60
    ? `${Math.min(Math.round(limit), Math.max(0, Math.floor(idleMs / 1000)))} of ${Math.round(limit)} s`
    : `${mins(idleMs)} of ${Math.round(limit / 60)} min`;
}

/** What the watchdog is doing, e.g. "watching · idle 3 of 30 min · acts at 14:05". */
export function activity(r: Reading & { state: WatchdogState }, now: number): string {
  const s = r.state;
  const local = localTime(r);
  if (s.doneAt !== null) return `${s.action === 'destroy' ? 'destroyed' : 'stopped'} the instance at ${clock(local(s.doneAt))}`;
  if (s.failures > 0 && s.lastError) {
    const wait = s.nextRetryAt === null ? 0 : Math.ceil((local(s.nextRetryAt) - now) / 60_000);
    return `${s.lastError}, retrying ${wait > 0 ? `in ${wait} min` : 'now'}`;
  }
  if (s.snoozedUntil !== null) return `watching · kept running until ${clock(local(s.snoozedUntil))}`;
  // A group member idle itself, kept running by the group: says which member and why.
  if (s.idleSince !== null && s.busyReason?.startsWith('group: '))
    return `watching · idle here ${idleProgress(now - local(s.idleSince), s.idleLimitSeconds)} · the group keeps running (${s.busyReason.slice(7)})`;
  if (s.idleSince !== null && s.actAt !== null)
    return `watching · idle ${idleProgress(now - local(s.idleSince), s.idleLimitSeconds)} · acts at ${clock(local(s.actAt))}`;
  return `watching · busy (${s.busyReason ?? 'active'})`;
}

/** "GPU 0 % · 1 SSH session · heartbeat 2 min ago · reported just now". */
export function readings(r: Reading & { state: WatchdogState }, now: number): string {
  const s = r.state;
  const gpu = s.gpuUtil !== null ? `GPU ${s.gpuUtil} %` : s.gpu === 'none' ? 'no GPU tool (judged by SSH and heartbeat)' : 'GPU not readable';
  const ssh = `${s.sshSessions} SSH session${s.sshSessions === 1 ? '' : 's'}`;
  const hb = s.heartbeatAgeSeconds !== null ? ` · heartbeat ${ago(s.heartbeatAgeSeconds * 1000)}` : '';
  const group = s.group
    ? s.group.startsWith('rank ')
      ? ` · group ${s.group}, stops when every member is idle`
      : ` · group: ${s.group}, so it watches this member alone`
    : '';
  return `${gpu} · ${ssh}${hb}${group} · reported ${ago(now - localTime(r)(s.updatedAt))}`;
}

/** Row text and tooltip lines for a watchdog that is not reporting (stale state, or none yet). */
export function notReporting(r: Reading, g: InstalledGuard): { text: string; details: string[] } {
  const since = r.state ? ` since ${clock(localTime(r)(r.state.updatedAt))}` : '';
  const verb = g.action === 'destroy' ? 'destroys' : 'stops';
  return {
    text: `guard: not reporting${since}`,
    details: [
      `Idle guard: not reporting${since}${r.state ? '' : ' (no state written on this instance)'}. Until it reports again, nothing ${verb} this instance when it is idle.`,
      'What to do: run "GPU Rental: Show Idle Guard Log…" for its reason (for example no curl on the image), or restart the instance (its onstart starts the guard again); stop the instance yourself when you are done.',
    ],
  };
}
