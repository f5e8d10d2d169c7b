// The words of the idle guard's notifications (no `vscode`, so unit tests read them): the warning
// before it acts counts the same minutes as the row, and the notice after it acted says what that saves.
import type { GuardActed, GuardWarning } from '../../core/guardPort';
import { clock, durationWords, idleProgress } from '../statusText';
import { instanceName } from '../../core/instanceWords';
import { currentRate, formatRate } from '../../core/rates';

/** The warning's words: the same minutes and clock time as the row ("idle 27 of 30 min · acts at 14:05"). */
export function warningText(w: GuardWarning, now = Date.now()): string {
  const name = instanceName(w.instance);
  const secs = Math.max(0, Math.round((w.actAt - now) / 1000));
  const when = secs <= 0 ? 'now' : `at ${clock(w.actAt)} (${secs < 60 ? `in ${secs} s` : `in about ${Math.round(secs / 60)} min`})`;
  const limit = durationWords(w.idleMinutes * 60);
  if (w.action === 'none') {
    return `${name} has been idle (GPU below the threshold) for ${limit} and has no working idle guard: it keeps billing until you stop it.`;
  }
  const verb = w.action === 'destroy' ? 'destroy' : 'stop';
  const idle = w.idleSince !== undefined ? `idle ${idleProgress(now - w.idleSince, w.idleMinutes * 60)}` : `it will have been idle for ${limit}`;
  const why = w.reason === 'idle' ? idle : `it reaches its ${w.reason} cap`;
  return `The idle guard will ${verb} ${name} ${when}: ${why}.`;
}

/** What the act saves per hour: the rate it ran at, less what still bills (the stopped disk). */
export function actedText(a: GuardActed): string {
  const name = instanceName(a.before);
  const before = currentRate(a.before);
  const after = a.after ? currentRate(a.after) : 0;
  const why = a.reason === 'idle' ? `it was idle for ${durationWords(a.idleLimitSeconds)}` : `it reached its ${a.reason} cap`;
  const saves =
    before > 0
      ? ` That saves ${formatRate(Math.max(0, before - after))}${a.after && after > 0 ? ` (its disk still bills ${formatRate(after, 3)} until you destroy it)` : ''}.`
      : '';
  return `The idle guard ${a.action === 'destroy' ? 'destroyed' : 'stopped'} ${name} at ${clock(a.at)}: ${why}.${saves}`;
}

/** Why Keep Running failed, when the guard acts anyway, and what to do about it. */
export function snoozeFailedText(name: string, why: string, planned: { at: number; action: 'stop' | 'destroy' } | undefined): string {
  const when = planned ? ` at ${clock(planned.at)}` : ' as planned';
  const verb = planned?.action === 'destroy' ? 'destroy' : 'stop';
  return `Keep Running could not reach ${name}: ${why} The idle guard will still ${verb} it${when}. To keep it: open a terminal on it (an open SSH session counts as activity) and try Keep Running again; if you are done, stop it now.`;
}
