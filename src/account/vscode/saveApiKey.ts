// Saving an API key with what the user sees around it (progress, the error, "signed in as …"):
// the step Set API Key and Import CLI Key share. The key itself changes only through
// services.apiKey (src/account/apiKey.ts).
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { tellDone } from '../../core/vscode/statusMessage';

/** Validates the key with the service before saving; `quiet` (scripts) shows no success notification. */
export async function saveKeyWithFeedback(
  services: Pick<Services, 'apiKey' | 'connectionState' | 'log'>,
  key: string | undefined,
  quiet: boolean,
): Promise<boolean> {
  const base = services.connectionState.baseUrl();
  if (!base.ok) {
    vscode.window.showErrorMessage(base.message);
    return false;
  }
  if (services.connectionState.isDemo()) {
    vscode.window.showErrorMessage(vscode.l10n.t('You are in demo mode. Run "GPU Rental: Exit Demo Mode" first, then set your API key.'));
    return false;
  }
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Checking the API key…') }, () =>
    services.apiKey.save(key),
  );
  if (!result.ok) {
    services.log.warn(`API key not saved: ${result.message}`);
    vscode.window.showErrorMessage(result.message);
    return false;
  }
  services.log.info(`API key saved (account #${result.user.id}).`);
  if (!quiet) {
    tellDone(result.user.email ? vscode.l10n.t('Signed in as {0}.', result.user.email) : vscode.l10n.t('Signed in.'));
  }
  return true;
}
