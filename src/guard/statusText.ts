// The words the Instances row and its tooltip use for a watchdog's state: what it is doing,
// when it acts, and, when it stopped reporting, what to do. Raw errors never reach these
// texts (they go to the log). No `vscode`.
import type { InstalledGuard } from './installed';
import type { WatchdogState } from './watchdogState';
import * as l10n from '@vscode/l10n';

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
const ago = (ms: number) => (ms < 60_000 ? l10n.t('just now') : l10n.t('{0} min ago', mins(ms)));

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
    : l10n.t('{0} of {1} min', mins(idleMs), Math.round(limit / 60));
}

/** What the watchdog is doing, e.g. "watching · idle 3 of 30 min · acts at 14:05". */
export function activity(r: Reading & { state: WatchdogState }, now: number): string {
  const s = r.state;
  const local = localTime(r);
  if (s.doneAt !== null)
    return s.action === 'destroy'
      ? l10n.t('destroyed the instance at {0}', clock(local(s.doneAt)))
      : l10n.t('stopped the instance at {0}', clock(local(s.doneAt)));
  if (s.failures > 0 && s.lastError) {
    const wait = s.nextRetryAt === null ? 0 : Math.ceil((local(s.nextRetryAt) - now) / 60_000);
    return wait > 0 ? l10n.t('{0}, retrying in {1} min', s.lastError, wait) : l10n.t('{0}, retrying now', s.lastError);
  }
  if (s.snoozedUntil !== null) return l10n.t('watching · kept running until {0}', clock(local(s.snoozedUntil)));
  // A group member idle itself, kept running by the group: says which member and why.
  if (s.idleSince !== null && s.busyReason?.startsWith('group: '))
    return l10n.t(
      'watching · idle here {0} · the group keeps running ({1})',
      idleProgress(now - local(s.idleSince), s.idleLimitSeconds),
      s.busyReason.slice(7),
    );
  if (s.idleSince !== null && s.actAt !== null)
    return l10n.t('watching · idle {0} · acts at {1}', idleProgress(now - local(s.idleSince), s.idleLimitSeconds), clock(local(s.actAt)));
  return l10n.t('watching · busy ({0})', s.busyReason ?? l10n.t('active'));
}

/** "GPU 0 % · 1 SSH session · heartbeat 2 min ago · reported just now". */
export function readings(r: Reading & { state: WatchdogState }, now: number): string {
  const s = r.state;
  const gpu =
    s.gpuUtil !== null ? l10n.t('GPU {0} %', s.gpuUtil) : s.gpu === 'none' ? l10n.t('no GPU tool (judged by SSH and heartbeat)') : l10n.t('GPU not readable');
  const ssh = s.sshSessions === 1 ? l10n.t('1 SSH session') : l10n.t('{0} SSH sessions', s.sshSessions);
  const hb = s.heartbeatAgeSeconds !== null ? [l10n.t('heartbeat {0}', ago(s.heartbeatAgeSeconds * 1000))] : [];
  const group = s.group
    ? s.group.startsWith('rank ')
      ? [l10n.t('group {0}, stops when every member is idle', s.group)]
      : [l10n.t('group: {0}, so it watches this member alone', s.group)]
    : [];
  return [gpu, ssh, ...hb, ...group, l10n.t('reported {0}', ago(now - localTime(r)(s.updatedAt)))].join(' · ');
}

/** Row text and tooltip lines for a watchdog that is not reporting (stale state, or none yet). */
export function notReporting(r: Reading, g: InstalledGuard): { text: string; details: string[] } {
  const since = r.state ? l10n.t('not reporting since {0}', clock(localTime(r)(r.state.updatedAt))) : l10n.t('not reporting');
  const why = r.state ? since : l10n.t('not reporting (no state written on this instance)');
  return {
    text: l10n.t('guard: {0}', since),
    details: [
      g.action === 'destroy'
        ? l10n.t('Idle guard: {0}. Until it reports again, nothing destroys this instance when it is idle.', why)
        : l10n.t('Idle guard: {0}. Until it reports again, nothing stops this instance when it is idle.', why),
      l10n.t(
        'What to do: run "GPU Rental: Show Idle Guard Log…" for its reason (for example no curl on the image), or restart the instance (its onstart starts the guard again); stop the instance yourself when you are done.',
      ),
    ],
  };
}
