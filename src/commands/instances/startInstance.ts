import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { instanceName, stateCategory } from '../../model/instanceViewModel';
import { sshAddress } from '../../ssh/address';
import { setInstanceState } from './setInstanceState';

/** How long a start is followed for its "running again" notice (a slow host can take minutes). */
const FOLLOW_MS = 20 * 60_000;

export function startInstance(services: Services, arg?: unknown): Promise<boolean> {
  return setInstanceState(
    services,
    {
      to: 'running',
      from: ['stopped', 'failed'],
      verb: 'Start Instance',
      none: 'No stopped instance to start.',
      pending: 'Starting…',
      failure: 'Could not start',
      after: (id) => offerConnectWhenRunning(services, id),
    },
    arg,
  );
}

/**
 * Like Create, a start ends with a notice once the instance runs again, offering Connect (and
 * the terminal). Not awaited: the instance may take minutes; the notice comes when it is there.
 */
export function offerConnectWhenRunning(services: Services, id: number): void {
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
      void vscode.window.showInformationMessage(`"${instanceName(inst)}" is running again.`, 'Connect', 'Open Terminal').then((a) => {
        if (a === 'Connect') void vscode.commands.executeCommand('gpuRental.connect', id);
        else if (a === 'Open Terminal') void vscode.commands.executeCommand('gpuRental.openTerminal', id);
      });
    } else if (moved && stateCategory(inst) === 'failed') {
      leave(); // it failed again after starting: the row says so; no "running" notice
    }
  };
  const sub: { dispose(): void } | undefined = services.instances.onDidChange(check);
  services.track(sub);
  const timer = setTimeout(leave, FOLLOW_MS);
  check();
}
