// After Start: the notice once the instance runs again, offering Connect and the terminal (run
// by id, so this file needs neither). Used by Start Instance, apart from the Connect command.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { instanceName, stateCategory } from '../../core/instanceWords';
import { sshAddress } from '../address';
import { background } from '../../core/background';

/** How long a start is followed for its "running again" notice (a slow host can take minutes). */
const FOLLOW_MS = 20 * 60_000;

/**
 * Like Create, a start ends with a notice once the instance runs again, offering Connect (and
 * the terminal). Not awaited: the instance may take minutes; the notice comes when it is there.
 */
export function offerConnectWhenRunning(services: Pick<Services, 'instances' | 'log' | 'track'>, id: number): void {
  let left = false;
  let moved = false;
  const leave = (): void => {
    left = true;
    sub?.dispose();
    clearTimeout(timer);
  };
  const check = (): void => {
    if (left) return;
    const inst = services.instances.get(id);
    if (!inst) return leave(); // destroyed, or signed out
    if (stateCategory(inst) !== 'failed') moved = true;
    if (inst.state === 'running' && sshAddress(inst)) {
      leave();
      background(
        vscode.window
          .showInformationMessage(vscode.l10n.t('"{0}" is running again.', instanceName(inst)), vscode.l10n.t('Connect'), vscode.l10n.t('Open Terminal'))
          .then((a) => {
            if (a === vscode.l10n.t('Connect')) background(vscode.commands.executeCommand('gpuRental.connect', id), services.log, 'opening Connect');
            else if (a === vscode.l10n.t('Open Terminal'))
              background(vscode.commands.executeCommand('gpuRental.openTerminal', id), services.log, 'opening a terminal');
          }),
        services.log,
        'the running-again notice',
      );
    } else if (moved && stateCategory(inst) === 'failed') {
      leave(); // it failed again after starting: the row says so; no "running" notice
    }
  };
  const sub: { dispose(): void } | undefined = services.instances.onDidChange(check);
  services.track(sub);
  const timer = setTimeout(leave, FOLLOW_MS);
  check();
}
