// The warning shortly before an idle guard acts (or, without a watchdog, once an instance has
// been idle long enough): Keep Running 1 h, Stop Now, Don't Warn Again (for this instance). The
// monitor sends at most one per instance per hour. Buttons run the same commands scripts use.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { GuardWarning } from '../monitor';
import { durationWords } from '../statusText';
import { instanceName } from '../../instances/instanceViewModel';
import { background } from '../../core/background';

export const KEEP_RUNNING = 'Keep Running 1 h';
export const STOP_NOW = 'Stop Now';
// Short enough that all three buttons fit a notification (with the long one, VS Code cut them to "Keep Running…", "Stop N…").
export const DONT_WARN = "Don't Warn Again";

export function warningText(w: GuardWarning, now = Date.now()): string {
  const name = instanceName(w.instance);
  const secs = Math.max(0, Math.round((w.actAt - now) / 1000));
  const when = secs <= 0 ? 'now' : secs < 60 ? `in ${secs} s` : `in about ${Math.round(secs / 60)} min`;
  const limit = durationWords(w.idleMinutes * 60);
  if (w.action === 'none') {
    return `${name} has been idle (GPU below the threshold) for ${limit} and has no idle guard: it keeps billing until you stop it.`;
  }
  const verb = w.action === 'destroy' ? 'destroy' : 'stop';
  const why = w.reason === 'idle' ? `it will have been idle for ${limit}` : `it reaches its ${w.reason} cap`;
  return `The idle guard will ${verb} ${name} ${when}: ${why}.`;
}

export function startGuardWarnings(services: Services): void {
  services.track(
    services.guard.onWarn((w) => {
      // A cap is hard: snoozing does not postpone it, so only the idle warning offers Keep Running.
      const actions = w.reason === 'idle' ? [KEEP_RUNNING, STOP_NOW, DONT_WARN] : [STOP_NOW, DONT_WARN];
      services.log.info(`guard: warning for instance ${w.instance.id} (${w.reason}, ${w.action})`);
      background(vscode.window.showWarningMessage(warningText(w), ...actions).then(async (pick) => {
        const instanceId = w.instance.id;
        if (pick === KEEP_RUNNING) await vscode.commands.executeCommand('gpuRental.snoozeGuard', { instanceId, minutes: 60 });
        else if (pick === STOP_NOW) await vscode.commands.executeCommand('gpuRental.stopInstance', instanceId);
        else if (pick === DONT_WARN) await services.guard.dontWarn(instanceId);
      }), services.log, 'the guard warning');
    }),
  );
}
