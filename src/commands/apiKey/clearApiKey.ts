import * as vscode from 'vscode';
import type { Services } from '../../model/services';
import { clearApiKey } from '../../account/apiKey';
import { core } from '../../views/services';

export function clearApiKeyCommand(services: Services) {
  return async (): Promise<void> => {
    await clearApiKey(services.secrets);
    await services.setSessionKey(undefined);
    core(services).connectionState.setApiKey(undefined);
    services.log.info('API key cleared.');
    void vscode.window.setStatusBarMessage('GPU Rental: API key removed from this machine.', 4000);
  };
}
