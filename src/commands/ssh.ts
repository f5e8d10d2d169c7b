// Remote-SSH: the connect command, the config include set-up and the entry sync.
// The writer and connect live in dist/ssh.js, loaded the first time one of them runs.
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import type { ConnectOptions } from './ssh/connect';
import { startSshSync } from './ssh/sync';

export type { ConnectResult, ConnectOptions } from './ssh/connect';

export function registerSsh(context: vscode.ExtensionContext, services: Services): void {
  const ssh = () => import('./ssh/lazy');
  context.subscriptions.push(
    vscode.commands.registerCommand('gpuRental.connect', async (target?: unknown, o?: ConnectOptions) => (await ssh()).connect(services, target, o)),
    vscode.commands.registerCommand('gpuRental.setupSshConfig', async () => {
      const { createWriter, ensureInclude } = await ssh();
      const writer = createWriter(services);
      const status = await ensureInclude(services, writer, true, true);
      if (status.state === 'present') {
        void vscode.window.showInformationMessage(`Your SSH config (${status.userConfig}) includes GPU Rental's hosts; Remote-SSH lists them after their instances are running.`);
      }
      return status;
    }),
    startSshSync(services),
  );
}
