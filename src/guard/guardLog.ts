// Show Idle Guard Log: the end of an instance's guard.log, read over SSH by the guard's one
// remote (remote.ts: the same `ssh -F <managed config> <alias>` as the state read, its text
// printable and with secrets masked), and the words for each way it can go. No `vscode`.
import type { Instance } from '../api/types';
import { installedGuard } from './installed';
import type { GuardRemote } from './remote';
import * as l10n from '@vscode/l10n';

export type GuardLogRead =
  /** `earlier`: the instance is not running; these are the lines read while it ran. */
  | { kind: 'log'; text: string; earlier?: boolean }
  /** The watchdog has written no log yet. */
  | { kind: 'empty' }
  /** No watchdog on this instance (created elsewhere, or with "guard": false). */
  | { kind: 'noGuard' }
  /** Not running, and nothing read while it ran. */
  | { kind: 'notRunning' }
  /** No SSH entry for it on this machine. */
  | { kind: 'noEntry' }
  | { kind: 'unreachable'; reason: string };

/** The log of `inst`; `earlier` is what was last read of it (the monitor keeps the last lines). */
export async function readGuardLog(remote: Pick<GuardRemote, 'readLog'>, inst: Instance, earlier?: string): Promise<GuardLogRead> {
  if (!installedGuard(inst.onstart)) return { kind: 'noGuard' };
  if (inst.state !== 'running') return earlier ? { kind: 'log', text: earlier, earlier: true } : { kind: 'notRunning' };
  let text: string | undefined;
  try {
    text = await remote.readLog(inst.id);
  } catch (e) {
    return { kind: 'unreachable', reason: e instanceof Error ? e.message : String(e) };
  }
  if (text === undefined) return { kind: 'noEntry' };
  return text ? { kind: 'log', text } : { kind: 'empty' };
}

/** Why there is no log to show, in words with what to do. */
export function guardLogProblem(name: string, r: Exclude<GuardLogRead, { kind: 'log' }>): string {
  switch (r.kind) {
    case 'empty':
      return l10n.t(
        'The idle guard of {0} has written no log yet: it starts a few seconds after the instance runs (its onstart starts it). Try again in a minute; if it stays empty, restart the instance.',
        name,
      );
    case 'noGuard':
      return l10n.t(
        '{0} has no idle guard (it was created elsewhere, or with "guard": false), so there is no guard log. VS Code only warns while it is idle.',
        name,
      );
    case 'notRunning':
      return l10n.t("{0} is not running, so its guard log cannot be read (it is on the instance's disk). Start the instance to read it.", name);
    case 'noEntry':
      return l10n.t(
        'The guard log of {0} is read over SSH, and this machine has no SSH entry for it yet. Connect once (Connect with Remote-SSH or Open Terminal on Instance), then try again.',
        name,
      );
    case 'unreachable':
      return l10n.t(
        'Could not reach {0} over SSH to read its guard log: {1}. Check that the instance runs and that its SSH key is on your account (Open Terminal on Instance shows why ssh fails), then try again.',
        name,
        r.reason,
      );
  }
}

/** The document: where the lines come from, then the lines. */
export function guardLogDocument(name: string, id: number, r: { text: string; earlier?: boolean }, readAt: Date): string {
  const source = r.earlier
    ? l10n.t('The last lines read while it ran (it is not running now: start it to read the whole log).')
    : l10n.t('The last 200 lines of $TMPDIR/gpu-rental/guard.log, read over SSH at {0}.', readAt.toLocaleTimeString());
  return l10n.t('Idle guard log of {0} (#{1})\n{2} Secrets are masked.\nRun "Show Idle Guard Log" again to read it anew.\n\n{3}\n', name, id, source, r.text);
}
