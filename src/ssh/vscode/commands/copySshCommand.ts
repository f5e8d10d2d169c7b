// gpuRental.copySshCommand: an ssh command line for a running instance that works when pasted into
// a plain shell (its key named when ssh would not try it; the demo's entries through ssh -F).
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { instanceName, stateCategory } from '../../../core/instanceWords';
import { sshAddress } from '../../address';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { tellDone } from '../../../core/vscode/statusMessage';
import { CommandFailure } from '../../../core/vscode/commandFailure';

export async function copySshCommand(services: Services, arg?: unknown): Promise<string | undefined> {
  const inst = await resolveInstance(services, arg, (i) => stateCategory(i) === 'running' && sshAddress(i) !== undefined, {
    verb: 'Copy SSH Command',
    none: 'No running instance with SSH yet. Start one (or wait until it is running) and try again.',
  });
  if (!inst) return undefined;
  // Host, port and paths are checked and quoted in src/ssh/sshValues.ts, never pasted unchecked.
  const r = await (await import('../sshConnect')).commandToCopy(services, inst);
  if ('problem' in r) {
    throw new CommandFailure(vscode.l10n.t('No SSH command was copied for "{0}". {1}', instanceName(inst), r.problem));
  }
  await vscode.env.clipboard.writeText(r.command);
  // The command itself is on the clipboard: a short confirmation with the note (if any); the note is in the log too.
  if (r.note) services.log.info(`Copy SSH Command: ${r.note}`);
  tellDone(r.note ? vscode.l10n.t('SSH command copied. {0}', r.note) : 'SSH command copied.');
  return r.command;
}
