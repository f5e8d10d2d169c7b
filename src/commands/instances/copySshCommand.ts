import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { instanceName, sshCommand, stateCategory } from '../../model/instanceViewModel';
import { resolveInstance } from './target';

export async function copySshCommand(services: Services, arg?: unknown): Promise<string | undefined> {
  const inst = await resolveInstance(services, arg, (i) => stateCategory(i) === 'running' && !!sshCommand(i), {
    verb: 'Copy SSH Command',
    none: 'No running instance with SSH yet. Start one (or wait until it is running) and try again.',
  });
  if (!inst) return undefined;
  const cmd = sshCommand(inst);
  if (!cmd) {
    void vscode.window.showErrorMessage(`"${instanceName(inst)}" has no SSH address yet (it is not running). Start it, wait until it is running, then try again.`);
    return undefined;
  }
  await vscode.env.clipboard.writeText(cmd);
  void vscode.window.setStatusBarMessage(`Copied: ${cmd}`, 4000);
  return cmd;
}
