// The ports and results of the 2FA flows (tfaFlows.ts): the prompts the extension backs with
// VS Code UI and tests script, the dependencies a flow gets, how a flow ends, and what each way
// of verifying asks for and sends.
import type { KeyValueStore } from '../core/ports';
import type { Logger, ServiceApi, TfaMethod, TfaVerification, TotpSetupResult } from '../api/types';
import type { TfaErrorAction, TfaErrorInfo } from './tfaErrors';
import type { DemoInbox } from '../demo/demoInbox';
import * as l10n from '@vscode/l10n';

/** How the user proves it is them for one step. */
export type Verifier =
  | { kind: 'method'; method: TfaMethod }
  | { kind: 'email' }
  | { kind: 'backup' }
  /** Legacy accounts: an SMS to the phone number on file (no method rows yet). */
  | { kind: 'phoneOnFile' };

export interface PickVerifierRequest {
  title: string;
  methods: TfaMethod[];
  email: boolean;
  backup: boolean;
  phoneOnFile?: boolean;
}

export interface CodeRequest {
  title: string;
  prompt: string;
  kind: 'otp' | 'backup';
  /** Demo mode: where the code can be read ("Demo inbox: the e-mail to … says 123456"). */
  hint?: string;
}

/** The user-facing side of the flows. The extension backs it with VS Code UI; tests script it. */
export interface TfaPrompts {
  pickVerifier(req: PickVerifierRequest): Promise<Verifier | undefined>;
  pickMethod(title: string, methods: TfaMethod[]): Promise<TfaMethod | undefined>;
  /** Returns the entered code (already format-checked by the UI) or undefined when cancelled. */
  code(req: CodeRequest): Promise<string | undefined>;
  phone(title: string): Promise<string | undefined>;
  /** undefined = cancelled; '' = no label. */
  label(title: string, value?: string): Promise<string | undefined>;
  confirm(message: string, confirmLabel: string): Promise<boolean>;
  /** Shows an error with its follow-up actions; returns the action chosen. */
  error(info: TfaErrorInfo): Promise<TfaErrorAction | undefined>;
  info(message: string): void;
  /** Shows the codes once. Must not persist them anywhere. */
  backupCodes(codes: readonly string[], title: string): Promise<void>;
  /**
   * Shows the TOTP setup (QR from provisioning_uri, secret for manual entry, code field).
   * `submit` returns undefined on success or an error sentence to show; the view closes
   * on success. Resolves false when the user closed it without success.
   */
  totpSetup(setup: TotpSetupResult, submit: (code: string, label?: string) => Promise<string | undefined>): Promise<boolean>;
}

export interface Clock {
  now(): number;
}

export interface TfaFlowDeps {
  api: ServiceApi;
  prompts: TfaPrompts;
  clock?: Clock;
  /** Where the authorization window end is remembered (globalState in the extension). */
  state?: KeyValueStore;
  setSessionKey?: (key: string | undefined) => Promise<void>;
  log?: Logger;
  formatTime?: (ms: number) => string;
  /** Demo mode: the simulator's inbox, shown as a hint wherever a code is asked for. */
  inbox?: DemoInbox;
  /**
   * The account's 2FA state changed (a method added or removed, codes replaced): called at once,
   * before any view that waits for the user (the backup codes), so the Account view is current.
   */
  changed?: () => void;
}

export type FlowResult<T = void> = { ok: true; value: T } | { ok: false; reason: 'cancelled' | 'failed'; message?: string };

export const cancelled = { ok: false as const, reason: 'cancelled' as const };
export function failed(message: string): { ok: false; reason: 'failed'; message: string } {
  return { ok: false, reason: 'failed', message };
}

/** Raised inside a flow to stop it with a message the user has already seen. */
export class Stop extends Error {
  constructor(readonly result: { ok: false; reason: 'cancelled' | 'failed'; message?: string }) {
    super(result.message ?? result.reason);
  }
}

/** What the code box asks for, by how the user verifies. */
export function codePrompt(v: Verifier): string {
  switch (v.kind) {
    case 'email':
      return l10n.t('Enter the 6-digit code sent to your account e-mail');
    case 'backup':
      return l10n.t('Enter an unused backup code (XXXX-XXXX-XXXX)');
    case 'phoneOnFile':
      return l10n.t('Enter the 6-digit code sent by SMS to the phone number on file');
    case 'method':
      return v.method.method === 'totp'
        ? l10n.t('Enter the current 6-digit code from your authenticator app{0}', v.method.label ? ` (${v.method.label})` : '')
        : l10n.t('Enter the 6-digit code sent by SMS{0}', v.method.phone_number ? ` to ${v.method.phone_number}` : '');
  }
}

export function toVerification(v: Verifier, code: string, secret: string | undefined): TfaVerification {
  switch (v.kind) {
    case 'backup':
      return { backup_code: code };
    case 'email':
      return { tfa_method: 'email', code, secret };
    case 'phoneOnFile':
      return { tfa_method: 'sms', code, secret };
    case 'method':
      return v.method.method === 'sms'
        ? { tfa_method: 'sms', code, secret, tfa_method_id: v.method.id }
        : { tfa_method: 'totp', code, tfa_method_id: v.method.id };
  }
}
