import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { tellDone } from '../../../core/vscode/statusMessage';

export async function clearApiKey(services: Pick<Services, 'apiKey' | 'connection' | 'connectionState' | 'log' | 'setSessionKey'>): Promise<void> {
  if (services.connection().demo) {
    // The demo's key is simulated and never stored: "removed" would be untrue, and nothing would change.
    return (await import('../../../demo/vscode/demoExplain')).explainDemoKey(services);
  }
  await services.apiKey.clear();
  await services.setSessionKey(undefined);
  services.log.info('API key cleared.');
  tellDone(vscode.l10n.t('API key removed from this machine.'));
}
