// The VS Code side of TfaPrompts: quick picks, validated input boxes, notifications and
// the two webviews (TOTP setup, backup codes).
import * as vscode from 'vscode';
import type { TfaMethod, TotpSetupResult } from '../../api/types';
import type { TfaErrorAction, TfaErrorInfo } from '../tfaErrors';
import { formatLocal, methodName } from '../tfaErrors';
import type { CodeRequest, PickVerifierRequest, TfaPrompts, Verifier } from '../tfaPorts';
import { validateBackupCode, validateLabel, validateOtp, validatePhone } from '../tfaValidation';
import { showBackupCodes } from './backupCodesView';
import { backupCodesSavePath, type DemoFolders } from '../backupCodesFile';
import { homedir } from 'node:os';

const ACTION_LABELS: Record<TfaErrorAction, string> = {
  retry: 'Retry',
  newCode: 'Send New Code',
  resend: 'Resend Code',
  tryAgain: 'Enter Code Again',
};

export function describeMethod(m: TfaMethod, now = Date.now()): string {
  const parts: string[] = [m.method === 'totp' ? 'authenticator app' : `SMS${m.phone_number ? ` ${m.phone_number}` : ''}`];
  if (m.is_primary) parts.push('primary');
  if (m.fail_count) parts.push(`${m.fail_count} failed attempt${m.fail_count === 1 ? '' : 's'}`);
  if (m.locked_until && m.locked_until * 1000 > now) parts.push(`locked until ${formatLocal(m.locked_until * 1000)}`);
  return parts.join(' · ');
}

/** Demo mode: what an authenticator app with a given key would show now (the demo user has no app for a simulated key). */
export interface DemoCodes {
  totpCode(secret: string): string;
  /** The demo's folders: file dialogs propose them, never the real home. */
  folders: DemoFolders;
}

export function createVscodePrompts(extensionUri: vscode.Uri, demo?: DemoCodes): TfaPrompts {
  return {
    async pickVerifier(req: PickVerifierRequest): Promise<Verifier | undefined> {
      type Item = vscode.QuickPickItem & { v: Verifier };
      const items: Item[] = req.methods.map((m) => ({
        label: `$(${m.method === 'totp' ? 'key' : 'device-mobile'}) ${m.label || methodName(m)}`,
        description: describeMethod(m),
        v: { kind: 'method', method: m },
      }));
      if (req.phoneOnFile) items.push({ label: vscode.l10n.t('$(device-mobile) SMS to the phone number on file'), v: { kind: 'phoneOnFile' } });
      if (req.email)
        items.push({
          label: vscode.l10n.t('$(mail) Send code by e-mail'),
          description: vscode.l10n.t('to your verified account e-mail'),
          v: { kind: 'email' },
        });
      if (req.backup)
        items.push({
          label: vscode.l10n.t('$(shield) Use a backup code'),
          description: vscode.l10n.t('XXXX-XXXX-XXXX, each works once'),
          v: { kind: 'backup' },
        });
      const pick = await vscode.window.showQuickPick(items, {
        title: req.title,
        placeHolder: vscode.l10n.t('How do you want to verify?'),
        ignoreFocusOut: true,
      });
      return pick?.v;
    },
    async pickMethod(title, methods) {
      if (methods.length === 0) {
        vscode.window.showInformationMessage(vscode.l10n.t('You have no 2FA methods yet. Add an authenticator app or SMS from the Account view.'));
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(
        methods.map((m) => ({ label: m.label || methodName(m), description: describeMethod(m), m })),
        { title, ignoreFocusOut: true },
      );
      return pick?.m;
    },
    async code(req: CodeRequest) {
      return vscode.window.showInputBox({
        title: req.title,
        // In the demo the code "sent" is shown right under the box, where the user is looking.
        prompt: req.hint ? `${req.prompt}. ${req.hint}.` : req.prompt,
        placeHolder: req.kind === 'otp' ? '123456' : 'XXXX-XXXX-XXXX',
        password: req.kind === 'backup',
        ignoreFocusOut: true,
        validateInput: (v) => (v ? (req.kind === 'otp' ? validateOtp(v) : validateBackupCode(v)) : undefined),
      });
    },
    async phone(title) {
      return vscode.window.showInputBox({
        title,
        prompt: vscode.l10n.t('Phone number in international E.164 format'),
        placeHolder: '+14155550123',
        ignoreFocusOut: true,
        validateInput: (v) => (v ? validatePhone(v) : undefined),
      });
    },
    async label(title, value) {
      return vscode.window.showInputBox({
        title,
        value,
        prompt: vscode.l10n.t('Up to 30 characters'),
        placeHolder: vscode.l10n.t('e.g. Phone authenticator'),
        ignoreFocusOut: true,
        validateInput: validateLabel,
      });
    },
    async confirm(message, confirmLabel) {
      const r = await vscode.window.showWarningMessage(message, { modal: true }, confirmLabel);
      return r === confirmLabel;
    },
    async error(info: TfaErrorInfo) {
      const labels = info.actions.map((a) => ACTION_LABELS[a]);
      const r = await vscode.window.showErrorMessage(info.message, ...labels);
      return info.actions.find((a) => ACTION_LABELS[a] === r);
    },
    info(message) {
      vscode.window.showInformationMessage(message);
    },
    async backupCodes(codes, title) {
      await showBackupCodes(extensionUri, codes, title, () => backupCodesSavePath(homedir(), demo?.folders));
    },
    async totpSetup(setup: TotpSetupResult, submit) {
      // The QR encoder is loaded only when this view opens (kept out of the activation bundle).
      const { showTotpSetup } = await import('./totpWebview');
      return showTotpSetup(extensionUri, setup, submit, demo && (() => demo.totpCode(setup.secret)));
    },
  };
}
