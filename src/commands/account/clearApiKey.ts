import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { clearApiKey as forgetApiKey } from '../../account/apiKey';

export async function clearApiKey(services: Services): Promise<void> {
  if (services.connection().demo) {
    // The demo's key is simulated and never stored: "removed" would be untrue, and nothing would change.
    return (await import('./demoExplain')).explainDemoKey(services);
  }
  await forgetApiKey(services.secrets);
  await services.setSessionKey(undefined);
  services.connectionState.setApiKey(undefined);
  services.log.info('API key cleared.');
  void vscode.window.setStatusBarMessage('GPU Rental: API key removed from this machine.', 4000);
}
