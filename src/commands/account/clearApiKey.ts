import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { clearApiKey as forgetApiKey } from '../../account/apiKey';

export async function clearApiKey(services: Services): Promise<void> {
  if (services.connection().demo) {
    // The demo's key is simulated and never stored: "removed" would be untrue, and nothing would change.
    await explainDemoKey(services);
    return;
  }
  await forgetApiKey(services.secrets);
  await services.setSessionKey(undefined);
  services.connectionState.setApiKey(undefined);
  services.log.info('API key cleared.');
  void vscode.window.setStatusBarMessage('GPU Rental: API key removed from this machine.', 4000);
}

async function explainDemoKey(services: Services): Promise<void> {
  if (services.connectionState.isDemo()) {
    const pick = await vscode.window.showInformationMessage(
      'Demo mode signs in with a simulated key that is never stored, so there is no API key to clear. Run "Exit Demo Mode" to leave the demo.',
      'Exit Demo Mode',
    );
    if (pick) await vscode.commands.executeCommand('gpuRental.exitDemoMode');
    return;
  }
  void vscode.window.showInformationMessage(
    'This window is the demo started by "npm run demo": it signs in with a simulated key given to this window only, and nothing is stored to clear. Close the window (or press Ctrl-C where npm run demo runs) to end the demo.',
  );
}
