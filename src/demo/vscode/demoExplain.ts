// What Clear API Key and Try Demo Mode say inside a demo (a lazily loaded bundle: rare words,
// kept off the activation path).
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { demoMessage } from '../../core/connection';
import { background } from '../../core/background';
import { tellNothing } from '../../core/vscode/statusMessage';

const END_NPM_DEMO = 'Close the window (or press Ctrl-C where npm run demo runs) to end it.';

/** The demo's key is simulated and never stored: "removed" would be untrue, and nothing would change. */
export async function explainDemoKey(services: Pick<Services, 'connectionState'>): Promise<void> {
  if (services.connectionState.isDemo()) {
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('Demo mode signs in with a simulated key that is never stored, so there is no API key to clear. Run "Exit Demo Mode" to leave the demo.'),
      vscode.l10n.t('Exit Demo Mode'),
    );
    if (pick) await vscode.commands.executeCommand('gpuRental.exitDemoMode');
    return;
  }
  // Nothing to do, and no button that would help: a status bar line.
  tellNothing(vscode.l10n.t('This window is the "npm run demo" demo: its simulated key is not stored, so there is nothing to clear. {0}', END_NPM_DEMO));
}

/** `npm run demo`: swapping in a second simulated world under the same "demo" label would only confuse. */
export function explainAlreadyInDemo(services: Pick<Services, 'log'>): void {
  tellNothing(vscode.l10n.t('This window is already the demo (started by "npm run demo"). {0} {1}', demoMessage(), END_NPM_DEMO));
  background(vscode.commands.executeCommand('gpuRental.instances.focus'), services.log, 'opening the Instances view');
}
