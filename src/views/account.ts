// The Account view and the 2FA commands (issue #6).
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { AUTHORIZED_UNTIL_KEY } from '../account/tfaFlows';
import { AccountTreeProvider } from './account/accountTree';
import type { TfaCommandContext } from '../commands/tfa/common';
import { addTotp } from '../commands/tfa/addTotp';
import { addSms } from '../commands/tfa/addSms';
import { regenerateBackupCodes } from '../commands/tfa/regenerateBackupCodes';
import { signIn } from '../commands/tfa/signIn';
import { signOut } from '../commands/tfa/signOut';
import { renameMethod } from '../commands/tfa/renameMethod';
import { makePrimary } from '../commands/tfa/makePrimary';
import { removeMethod } from '../commands/tfa/removeMethod';
import { refresh } from '../commands/tfa/refresh';

export function registerAccount(context: vscode.ExtensionContext, services: Services): void {
  const authorizedUntil = (): number | undefined => {
    const t = services.globalState.get<number>(AUTHORIZED_UNTIL_KEY);
    return t !== undefined && t > Date.now() ? t : undefined;
  };
  const tree = new AccountTreeProvider(services, authorizedUntil);
  const view = vscode.window.createTreeView('gpuRental.account', { treeDataProvider: tree, showCollapseAll: false });
  tree.setVisible(view.visible);
  const ctx: TfaCommandContext = { services, extensionUri: context.extensionUri, refresh: () => tree.refresh() };
  const commands: Record<string, (arg?: never) => unknown> = {
    'gpuRental.tfa.addTotp': (a) => addTotp(ctx, a),
    'gpuRental.tfa.addSms': (a) => addSms(ctx, a),
    'gpuRental.tfa.regenerateBackupCodes': (a) => regenerateBackupCodes(ctx, a),
    'gpuRental.tfa.signIn': (a) => signIn(ctx, a),
    'gpuRental.tfa.signOut': (a) => signOut(ctx, a),
    'gpuRental.tfa.renameMethod': (a) => renameMethod(ctx, a),
    'gpuRental.tfa.makePrimary': (a) => makePrimary(ctx, a),
    'gpuRental.tfa.removeMethod': (a) => removeMethod(ctx, a),
    'gpuRental.tfa.refresh': () => refresh(ctx),
  };
  const sessionContext = (session: boolean): void => void vscode.commands.executeCommand('setContext', 'gpuRental.tfaSession', session);
  sessionContext(services.connection().session);
  context.subscriptions.push(
    tree,
    view,
    view.onDidChangeVisibility((e) => tree.setVisible(e.visible)),
    services.onDidChangeConnection((c) => {
      sessionContext(c.session);
      tree.refresh();
    }),
    ...Object.entries(commands).map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
  );
}
