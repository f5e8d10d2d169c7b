// What the idle guard tells the user: the warning shortly before it acts (Keep Running 1 h, Stop
// Now, Don't Warn Again), and once it stopped or destroyed an instance one notification that
// names it, why and what that saves per hour (Start, Show Guard Log). A warning is a progress
// notification (a plain one cannot be taken back): it closes when the monitor withdraws it (busy
// again, snoozed, acted, gone), so no stale warning stays beside the notice of what the guard did.
// Its actions are command links to the commands scripts use (a progress notification has no
// buttons of its own); Cancel only dismisses it, the guard still acts.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { GuardWarning } from '../../core/guardPort';
import { actedText, warningText } from './guardWarningText';
import { stoppedSinceKey } from '../../core/stateKeys';
import { background } from '../../core/background';
import { OpenWarnings } from './openWarnings';

export const KEEP_RUNNING = 'Keep Running 1 h';
export const STOP_NOW = 'Stop Now';
export const DONT_WARN = "Don't Warn Again";
export const START = 'Start';
export const SHOW_LOG = 'Show Guard Log';
type WarningPick = 'keep' | 'stop' | 'dontWarn';
const LABEL: Record<WarningPick, string> = { keep: KEEP_RUNNING, stop: STOP_NOW, dontWarn: DONT_WARN };

/** A command link to the command scripts use (the arguments are numbers only: no server text in a link). */
export function warningLink(instanceId: number, pick: WarningPick): string {
  const [command, arg] =
    pick === 'keep'
      ? ['gpuRental.snoozeGuard', { instanceId, minutes: 60 }]
      : pick === 'stop'
        ? ['gpuRental.stopInstance', instanceId]
        : ['gpuRental.dontWarnGuard', instanceId];
  return `[${LABEL[pick]}](command:${command}?${encodeURIComponent(JSON.stringify([arg]))})`;
}

/** The warnings on screen (one extension host: one set). */
let shownWarnings: OpenWarnings<GuardWarning> | undefined;

/** Closes the instance's warning on screen (Don't Warn Again). */
export function closeGuardWarning(instanceId: number): void {
  shownWarnings?.closeInstance(instanceId);
}

/** Brackets in server text (a label) would make links of their own in a notification. */
const plain = (s: string): string => s.replace(/[[\]]/g, (c) => (c === '[' ? '(' : ')'));

export function startGuardWarnings(services: Pick<Services, 'api' | 'connection' | 'globalState' | 'guard' | 'instances' | 'log' | 'track'>): void {
  const { guard, log } = services;
  // Stopped disks end (gpuRental.guard.destroyAfterStoppedDays): a stopped machine's watchdog does not run.
  // Its own bundle loads once a list shows a stopped instance or a record of one is kept (until then
  // each of its looks would find nothing to record, warn or destroy), so activation does not carry it.
  let stoppedDisks: Promise<void> | undefined;
  const loadStoppedDisks = (): void => {
    if (stoppedDisks) return;
    const kept = services.globalState.get<Record<string, unknown>>(stoppedSinceKey(services.connection()));
    if (!services.instances.instances.some((i) => i.state === 'stopped') && !(kept && Object.keys(kept).length)) return;
    stoppedDisks = import('./stoppedDisks').then((m) => m.startStoppedDisks(services));
    background(stoppedDisks, log, 'loading the stopped-disk watcher');
  };
  services.track(services.instances.onDidChange(loadStoppedDisks));
  const open = (shownWarnings = new OpenWarnings<GuardWarning>());
  services.track({ dispose: () => open.closeAll() });
  services.track(
    guard.onWithdraw((w) => {
      const closed = open.withdraw(w.instanceId, w.key);
      log.info(`guard: warning for instance ${w.instanceId} withdrawn (${w.why})${closed ? ', closed' : ''}`);
    }),
  );
  services.track(
    guard.onWarn((w) => {
      // A cap is hard: snoozing does not postpone it, so only the idle warning offers Keep Running.
      const instanceId = w.instance.id;
      const shown = open.add(instanceId, w.key, w);
      const picks: WarningPick[] = w.reason === 'idle' ? ['keep', 'stop', 'dontWarn'] : ['stop', 'dontWarn'];
      const title = `${plain(warningText(w))} ${picks.map((p) => warningLink(instanceId, p)).join(' · ')}`;
      log.info(`guard: warning for instance ${instanceId} (${w.reason}, ${w.action})`);
      background(
        Promise.resolve(
          vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, cancel) => {
            // Cancel dismisses it (not a decision); the guard still acts as planned.
            const sub = cancel.onCancellationRequested(() => open.closeSeq(shown.seq));
            return shown.closed.finally(() => sub.dispose());
          }),
        ),
        log,
        'the guard warning',
      );
    }),
  );
  services.track(
    guard.onActed((a) => {
      const instanceId = a.before.id;
      log.info(`guard: instance ${instanceId} ${a.action === 'destroy' ? 'destroyed' : 'stopped'} by its idle guard (${a.reason})`);
      const actions = a.after ? [START, SHOW_LOG] : [];
      background(
        vscode.window.showInformationMessage(actedText(a), ...actions).then(async (pick) => {
          if (pick === START) await vscode.commands.executeCommand('gpuRental.startInstance', instanceId);
          else if (pick === SHOW_LOG) await vscode.commands.executeCommand('gpuRental.showGuardLog', instanceId);
        }),
        log,
        'the guard notice',
      );
    }),
  );
}
