// Asks, once, before the marked Include line goes into the user's SSH config.
import * as vscode from 'vscode';
import type { Services } from '../../model/services';
import type { SshConfigWriter, IncludeStatus } from '../../ssh';

const DECLINED_KEY = 'gpuRental.ssh.includeDeclined';
export const ADD_INCLUDE = 'Add Include Line';
export const NOT_NOW = 'Not Now';
export const COPY_LINE = 'Copy Line';

/**
 * Makes sure the user's SSH config includes ours. `explicit` means the user asked for it
 * (a command), so an earlier "Not Now" does not silence the question. `modal` is for callers
 * that wait for the answer (Connect, the setup command): a notification hides itself after a
 * few seconds, and Connect then seemed to do nothing. Without it (after a creation, not
 * awaited) the question is a notification, and one at a time.
 */
export function ensureInclude(services: Services, writer: SshConfigWriter, explicit: boolean, modal = false): Promise<IncludeStatus> {
  if (explicit || modal) return askInclude(services, writer, explicit, modal);
  asking ??= askInclude(services, writer, false, false).finally(() => (asking = undefined));
  return asking;
}

let asking: Promise<IncludeStatus> | undefined;

async function askInclude(services: Services, writer: SshConfigWriter, explicit: boolean, modal: boolean): Promise<IncludeStatus> {
  let status = await writer.includeStatus();
  if (status.state === 'absent') {
    if (!explicit && services.globalState.get<boolean>(DECLINED_KEY)) return status;
    const question = `Remote-SSH finds GPU Rental's hosts only if your SSH config (${status.userConfig}) includes the file GPU Rental manages. Add one Include line at its top? Your own entries stay exactly as they are.`;
    const picked = modal
      ? await vscode.window.showInformationMessage<vscode.MessageItem>(question, { modal: true }, { title: ADD_INCLUDE }, { title: NOT_NOW, isCloseAffordance: true })
      : await vscode.window.showInformationMessage(question, ADD_INCLUDE, NOT_NOW);
    const pick = typeof picked === 'string' ? picked : picked?.title;
    if (pick !== ADD_INCLUDE) {
      await services.globalState.update(DECLINED_KEY, true);
      return status;
    }
    await services.globalState.update(DECLINED_KEY, undefined);
    status = await writer.addInclude();
  }
  if (status.state === 'refused') {
    const pick = await vscode.window.showWarningMessage(status.message, COPY_LINE);
    if (pick === COPY_LINE) await vscode.env.clipboard.writeText(status.line);
  }
  return status;
}
