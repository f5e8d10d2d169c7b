// What the idle guard tells the user: the warning shortly before it acts (Keep Running 1 h, Stop
// Now, Don't Warn Again), and once it stopped or destroyed an instance one notification that
// names it, why and what that saves per hour (Start, Show Guard Log). A notification cannot be
// taken back in the VS Code API, so a warning the guard withdrew (busy again, snoozed, acted)
// goes stale: its buttons then do nothing but say so. Buttons run the same commands scripts use.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { GuardWithdrawal } from '../monitor';
import { instanceName } from '../../instances/instanceViewModel';
import { actedText, warningText } from './guardWarningText';
import { startStoppedDisks } from './stoppedDisks';
import { background } from '../../core/background';

export const KEEP_RUNNING = 'Keep Running 1 h';
export const STOP_NOW = 'Stop Now';
// Short enough that all three buttons fit a notification (with the long one, VS Code cut them to "Keep Running…", "Stop N…").
export const DONT_WARN = "Don't Warn Again";
export const START = 'Start';
export const SHOW_LOG = 'Show Guard Log';

const STALE: Record<GuardWithdrawal['why'], string> = {
  busy: 'it is busy again, so the guard no longer plans to act',
  snoozed: 'it was kept running',
  acted: 'the guard has acted since',
  gone: 'it is no longer running',
};

export function startGuardWarnings(services: Services): void {
  const { guard, log } = services;
  // Stopped disks end (gpuRental.guard.destroyAfterStoppedDays): a stopped machine's watchdog does not run.
  startStoppedDisks(services);
  /** Why each withdrawn warning went stale (by instance and key), for its buttons. */
  const stale = new Map<string, GuardWithdrawal['why']>();
  services.track(
    guard.onWithdraw((w) => {
      stale.set(`${w.instanceId}:${w.key}`, w.why);
      log.info(`guard: warning for instance ${w.instanceId} withdrawn (${w.why})`);
    }),
  );
  services.track(
    guard.onWarn((w) => {
      // A cap is hard: snoozing does not postpone it, so only the idle warning offers Keep Running.
      const actions = w.reason === 'idle' ? [KEEP_RUNNING, STOP_NOW, DONT_WARN] : [STOP_NOW, DONT_WARN];
      const instanceId = w.instance.id;
      log.info(`guard: warning for instance ${instanceId} (${w.reason}, ${w.action})`);
      background(vscode.window.showWarningMessage(warningText(w), ...actions).then(async (pick) => {
        if (!pick) return;
        if (pick === DONT_WARN) return guard.dontWarn(instanceId);
        const why = stale.get(`${instanceId}:${w.key}`);
        if (why !== undefined || !guard.isCurrent(instanceId, w.key)) {
          vscode.window.showInformationMessage(`That warning about ${instanceName(w.instance)} is out of date (${STALE[why ?? 'gone']}): nothing was done.`);
          return;
        }
        if (pick === KEEP_RUNNING) await vscode.commands.executeCommand('gpuRental.snoozeGuard', { instanceId, minutes: 60 });
        else if (pick === STOP_NOW) await vscode.commands.executeCommand('gpuRental.stopInstance', instanceId);
      }), log, 'the guard warning');
    }),
  );
  services.track(
    guard.onActed((a) => {
      const instanceId = a.before.id;
      log.info(`guard: instance ${instanceId} ${a.action === 'destroy' ? 'destroyed' : 'stopped'} by its idle guard (${a.reason})`);
      const actions = a.after ? [START, SHOW_LOG] : [];
      background(vscode.window.showInformationMessage(actedText(a), ...actions).then(async (pick) => {
        if (pick === START) await vscode.commands.executeCommand('gpuRental.startInstance', instanceId);
        else if (pick === SHOW_LOG) await vscode.commands.executeCommand('gpuRental.showGuardLog', instanceId);
      }), log, 'the guard notice');
    }),
  );
}
