import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { findCliKey } from '../../apiKey';
import { saveKeyWithFeedback } from '../saveApiKey';

/** VAST_API_KEY or the official CLI's key file; asks before importing. */
export async function importCliKey(services: Pick<Services, 'apiKey' | 'connectionState' | 'log'>): Promise<boolean> {
  const found = await findCliKey();
  if (!found) {
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('No CLI API key found (checked VAST_API_KEY, ~/.config/vastai/vast_api_key and ~/.vast_api_key). Set the key by hand instead?'),
      vscode.l10n.t('Set API Key'),
    );
    if (pick) return (await vscode.commands.executeCommand<boolean>('gpuRental.setApiKey')) === true;
    return false;
  }
  const ok = await vscode.window.showInformationMessage(
    vscode.l10n.t('Import the API key from {0}? It is checked with the service, then kept in VS Code secret storage.', found.source),
    { modal: true },
    vscode.l10n.t('Import'),
  );
  if (ok !== vscode.l10n.t('Import')) return false;
  return saveKeyWithFeedback(services, found.key, false);
}
