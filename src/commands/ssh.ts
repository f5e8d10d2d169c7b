// Remote-SSH: the connect command, the config include set-up and the entry sync.
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { connect, type ConnectOptions } from './ssh/connect';
import { ensureInclude } from './ssh/include';
import { createWriter } from './ssh/settings';
import { startSshSync } from './ssh/sync';

export { sshEntryWriterFor } from './ssh/writerPort';
export type { ConnectResult, ConnectOptions } from './ssh/connect';

export function registerSsh(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('gpuRental.connect', (target?: unknown, o?: ConnectOptions) => connect(services, target, o)),
    vscode.commands.registerCommand('gpuRental.setupSshConfig', async () => {
      const writer = createWriter(services);
      const status = await ensureInclude(services, writer, true);
      if (status.state === 'present') {
        void vscode.window.showInformationMessage(`Your SSH config (${status.userConfig}) includes GPU Rental's hosts; Remote-SSH lists them after their instances are running.`);
      }
      return status;
    }),
    startSshSync(services),
  );
}
