import * as vscode from 'vscode';
import type { Services } from './services';
import { notSignedIn } from '../../api/errors';
import { background } from '../background';

/** The buttons of the not-signed-in error, each with the command it runs. */
export const SIGN_IN_ACTIONS: ReadonlyArray<{ title: string; command: string }> = [
  { title: vscode.l10n.t('Set API Key'), command: 'gpuRental.setApiKey' },
  { title: vscode.l10n.t('Try Demo Mode'), command: 'gpuRental.tryDemoMode' },
];

/** True when signed in; otherwise tells the user how to sign in (the one wording, api/errors.ts), with the buttons that do it. */
export function ensureSignedIn(services: Pick<Services, 'connection' | 'log'>): boolean {
  if (services.connection().signedIn) return true;
  background(
    Promise.resolve(vscode.window.showErrorMessage(notSignedIn(), ...SIGN_IN_ACTIONS.map((a) => a.title))).then(async (pick) => {
      const action = SIGN_IN_ACTIONS.find((a) => a.title === pick);
      if (action) await vscode.commands.executeCommand(action.command);
    }),
    services.log,
    'the sign-in notice',
  );
  return false;
}
