import * as vscode from 'vscode';
import type { Services } from '../model/services';

/** True when signed in; otherwise tells the user how to sign in (one wording for every command). */
export function ensureSignedIn(services: Services): boolean {
  if (services.connection().signedIn) return true;
  void vscode.window.showErrorMessage('You are not signed in to GPU Rental. Run "GPU Rental: Set API Key" (or "Try Demo Mode") first.');
  return false;
}
