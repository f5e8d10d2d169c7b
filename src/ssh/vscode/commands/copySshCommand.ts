import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { instanceName, sshCommandFor, stateCategory } from '../../../instances/instanceViewModel';
import { sshAddress } from '../../address';
import { resolveInstance } from '../../../core/vscode/instanceTarget';

export async function copySshCommand(services: Services, arg?: unknown): Promise<string | undefined> {
  const inst = await resolveInstance(services, arg, (i) => stateCategory(i) === 'running' && sshAddress(i) !== undefined, {
    verb: 'Copy SSH Command',
    none: 'No running instance with SSH yet. Start one (or wait until it is running) and try again.',
  });
  if (!inst) return undefined;
  // Host and port are server text: checked like the SSH writer checks them, never pasted unchecked.
  const r = sshCommandFor(inst);
  if ('problem' in r) {
    void vscode.window.showErrorMessage(`No SSH command was copied for "${instanceName(inst)}". ${r.problem}`);
    return undefined;
  }
  await vscode.env.clipboard.writeText(r.command);
  void vscode.window.setStatusBarMessage(`Copied: ${r.command}`, 4000);
  return r.command;
}
