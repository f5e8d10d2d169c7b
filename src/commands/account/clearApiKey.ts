import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { clearApiKey as forgetApiKey } from '../../account/apiKey';

export async function clearApiKey(services: Services): Promise<void> {
  await forgetApiKey(services.secrets);
  await services.setSessionKey(undefined);
  services.connectionState.setApiKey(undefined);
  services.log.info('API key cleared.');
  void vscode.window.setStatusBarMessage('GPU Rental: API key removed from this machine.', 4000);
}
