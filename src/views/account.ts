// The Account view and the 2FA commands (issue #6).
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { AUTHORIZED_UNTIL_KEY } from '../account/tfaKeys';
import { AccountTreeProvider } from './account/accountTree';
import type { TfaCommandContext } from '../commands/tfa/common';

export function registerAccount(context: vscode.ExtensionContext, services: Services): void {
  const authorizedUntil = (): number | undefined => {
    const t = services.globalState.get<number>(AUTHORIZED_UNTIL_KEY);
    return t !== undefined && t > Date.now() ? t : undefined;
  };
  const tree = new AccountTreeProvider(services, authorizedUntil);
  const view = vscode.window.createTreeView('gpuRental.account', { treeDataProvider: tree, showCollapseAll: false });
  tree.setVisible(view.visible);
  const ctx: TfaCommandContext = { services, extensionUri: context.extensionUri, refresh: () => tree.refresh() };
  // The flows live in dist/tfa.js, loaded the first time a 2FA command runs.
  const tfa = () => import('../commands/tfa/lazy');
  const commands: Record<string, (arg?: never) => unknown> = {
    'gpuRental.tfa.addTotp': async (a) => (await tfa()).addTotp(ctx, a),
    'gpuRental.tfa.addSms': async (a) => (await tfa()).addSms(ctx, a),
    'gpuRental.tfa.regenerateBackupCodes': async (a) => (await tfa()).regenerateBackupCodes(ctx, a),
    'gpuRental.tfa.signIn': async (a) => (await tfa()).signIn(ctx, a),
    'gpuRental.tfa.signOut': async (a) => (await tfa()).signOut(ctx, a),
    'gpuRental.tfa.renameMethod': async (a) => (await tfa()).renameMethod(ctx, a),
    'gpuRental.tfa.makePrimary': async (a) => (await tfa()).makePrimary(ctx, a),
    'gpuRental.tfa.removeMethod': async (a) => (await tfa()).removeMethod(ctx, a),
    'gpuRental.tfa.refresh': async () => (await tfa()).refresh(ctx),
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
