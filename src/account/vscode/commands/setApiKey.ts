import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { saveKeyWithFeedback } from '../saveApiKey';

/** gpuRental.setApiKey: a string argument is the key (scripts: no prompt, no notification). */
export async function setApiKey(services: Pick<Services, 'apiKey' | 'connectionState' | 'log'>, arg?: unknown): Promise<boolean> {
  if (typeof arg === 'string') return saveKeyWithFeedback(services, arg, true);
  const key = await vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Set API Key'),
    prompt: vscode.l10n.t('Paste an API key from your account page. It is checked with the service, then kept in VS Code secret storage (never in settings).'),
    password: true,
    ignoreFocusOut: true,
    placeHolder: vscode.l10n.t('API key'),
    validateInput: (v) => (v.trim() ? undefined : 'Paste your API key.'),
  });
  if (key === undefined) return false;
  return saveKeyWithFeedback(services, key, false);
}
