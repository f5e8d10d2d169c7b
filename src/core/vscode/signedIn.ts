import * as vscode from 'vscode';
import type { Services } from './services';
import { NOT_SIGNED_IN } from '../../api/errors';

/** True when signed in; otherwise tells the user how to sign in (the one wording, api/errors.ts). */
export function ensureSignedIn(services: Pick<Services, 'connection'>): boolean {
  if (services.connection().signedIn) return true;
  vscode.window.showErrorMessage(NOT_SIGNED_IN);
  return false;
}
