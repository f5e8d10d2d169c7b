import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { keyValidator, normalizeApiKey, validateAndSaveApiKey } from '../../apiKey';

/** Validates the key with the service before saving; a string argument skips the prompt. */
export async function saveKeyWithFeedback(services: Services, key: string | undefined, quiet: boolean): Promise<boolean> {
  const base = services.connectionState.baseUrl();
  if (!base.ok) {
    vscode.window.showErrorMessage(base.message);
    return false;
  }
  if (services.connectionState.isDemo()) {
    vscode.window.showErrorMessage('You are in demo mode. Run "GPU Rental: Exit Demo Mode" first, then set your API key.');
    return false;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'GPU Rental: checking the API key…' },
    () => validateAndSaveApiKey(key, services.secrets, keyValidator(base.url, services.log)),
  );
  if (!result.ok) {
    services.log.warn(`API key not saved: ${result.message}`);
    vscode.window.showErrorMessage(result.message);
    return false;
  }
  services.connectionState.setApiKey(normalizeApiKey(key));
  services.log.info(`API key saved (account #${result.user.id}).`);
  if (!quiet) {
    vscode.window.showInformationMessage(`GPU Rental: signed in${result.user.email ? ` as ${result.user.email}` : ''}.`);
  }
  return true;
}

/** gpuRental.setApiKey: a string argument is the key (scripts: no prompt, no notification). */
export async function setApiKey(services: Services, arg?: unknown): Promise<boolean> {
  if (typeof arg === 'string') return saveKeyWithFeedback(services, arg, true);
  const key = await vscode.window.showInputBox({
    title: 'GPU Rental: Set API Key',
    prompt: 'Paste an API key from your account page. It is checked with the service, then kept in VS Code secret storage (never in settings).',
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'API key',
    validateInput: (v) => (v.trim() ? undefined : 'Paste your API key.'),
  });
  if (key === undefined) return false;
  return saveKeyWithFeedback(services, key, false);
}
