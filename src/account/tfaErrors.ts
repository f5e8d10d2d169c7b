// Turns a failed 2FA call into one sentence saying what happened and what to do next,
// plus the follow-up actions a flow can offer. The sentences come from the API layer's
// ApiError.userMessage(); only lockouts and rate limits are reworded here, because the
// flow knows which method was locked and can name it.
import type { TfaMethod } from '../api/types';
import { apiErrorOf } from '../core/describeError';
import * as l10n from '@vscode/l10n';

/** What a flow can offer after an error. */
export type TfaErrorAction = 'retry' | 'newCode' | 'resend' | 'tryAgain';

export interface TfaErrorInfo {
  code?: string;
  message: string;
  actions: TfaErrorAction[];
}

export interface TfaErrorContext {
  /** The method being verified (for lockout and failure counts). */
  method?: TfaMethod;
  /** "e-mail", "backup code": how the user verified, when not a method. */
  via?: 'email' | 'backup';
  /** Formats epoch milliseconds as a local time; injectable for tests. */
  formatTime?: (ms: number) => string;
  /** Current time in ms, for "retry in N minutes". */
  now?: number;
}

export function methodName(m: TfaMethod | undefined): string {
  if (!m) return l10n.t('this method');
  const kind = m.method === 'totp' ? l10n.t('authenticator app') : m.method === 'sms' ? `SMS${m.phone_number ? ` to ${m.phone_number}` : ''}` : m.method;
  return m.label ? `"${m.label}" (${kind})` : kind;
}

/** "the e-mail code", "the code from "Laptop" (authenticator app)": what the user typed. */
function codeName(ctx: TfaErrorContext): string {
  if (ctx.via === 'email') return l10n.t('the e-mail code');
  if (ctx.via === 'backup') return l10n.t('the backup code');
  const m = ctx.method;
  if (m?.method === 'totp') return m.label ? l10n.t('the code from {0}', methodName(m)) : l10n.t('the authenticator app code');
  if (m?.method === 'sms')
    return m.label ? l10n.t('the SMS code for "{0}"', m.label) : l10n.t('the SMS code{0}', m.phone_number ? ` sent to ${m.phone_number}` : '');
  return l10n.t('the code for {0}', methodName(m));
}

/** What to check, worded for where the code came from. */
function checkHint(ctx: TfaErrorContext): string {
  if (ctx.via === 'email') return l10n.t('Check the code in the newest e-mail (an older one no longer works) and try again, or send a new code.');
  if (ctx.via === 'backup') return l10n.t('Check it against your saved list (each backup code works once, format XXXX-XXXX-XXXX) and try again.');
  if (ctx.method?.method === 'totp') return l10n.t('Check the code (authenticator codes change every 30 seconds) and try again.');
  if (ctx.method?.method === 'sms') return l10n.t('Check the code in the newest SMS and try again, or send a new code.');
  return l10n.t('Check the code and try again.');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Local hour and minute of an epoch-milliseconds time, in the user's locale. */
export function formatLocal(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Follow-up actions per error code; the sentence itself comes from ApiError.userMessage(). */
const ACTIONS: Record<string, TfaErrorAction[]> = {
  bad_request: ['tryAgain'],
  invalid_tfa_method: ['tryAgain'],
  missing_auth_value: ['tryAgain'],
  missing_params: ['newCode'],
  '2fa_expired': ['newCode'],
  challenge_not_found: ['newCode'],
  no_challenge_found: ['newCode'],
  tfa_challenge_exists: ['resend'],
  authorization_required: ['retry'],
  no_pending_authorization: ['retry'],
  invalid_backup_code: ['tryAgain'],
  sms_provider_error: ['retry'],
  phone_number_mismatch: ['newCode'],
  '2fa_login_failed': ['tryAgain'],
  missing_phone_number: ['tryAgain'],
  challenge_creation_failed: ['retry'],
  service_unavailable: ['retry'],
};

/** Describes a failed 2FA call. Never includes codes, secrets or keys. */
export function describeTfaError(e: unknown, ctx: TfaErrorContext = {}): TfaErrorInfo {
  const err = apiErrorOf(e);
  const fmt = ctx.formatTime ?? formatLocal;
  const now = ctx.now ?? Date.now();
  const code = err?.code;
  const who = ctx.via === 'email' ? l10n.t('e-mail code') : ctx.via === 'backup' ? l10n.t('backup code') : methodName(ctx.method);
  switch (code) {
    case 'tfa_locked': {
      const until = err?.lockedUntil ?? ctx.method?.locked_until ?? undefined;
      const end = until ? ` until ${fmt(until * 1000)}` : l10n.t(' for 15 minutes');
      return {
        code,
        message: l10n.t('Too many wrong codes: {0} is locked{1}. Wait until then, or verify with another method, an e-mail code or a backup code.', who, end),
        actions: [],
      };
    }
    case '2fa_verification_failed': {
      const n = err?.failCount;
      const tail = err?.lockedUntil
        ? l10n.t(' {0} is now locked until {1}; use another method meanwhile.', capitalize(who), fmt(err.lockedUntil * 1000))
        : ` ${checkHint(ctx)}`;
      return {
        code,
        message: !n
          ? l10n.t('{0} was not accepted.{1}', capitalize(codeName(ctx)), tail)
          : n === 1
            ? l10n.t('{0} was not accepted (1 failed attempt).{1}', capitalize(codeName(ctx)), tail)
            : l10n.t('{0} was not accepted ({1} failed attempts).{2}', capitalize(codeName(ctx)), n, tail),
        actions: err?.lockedUntil ? [] : ['tryAgain'],
      };
    }
    case 'sms_rate_limited':
    case 'sms_provider_rate_limited': {
      const when = err?.retryAfterSec ? `after ${fmt(now + err.retryAfterSec * 1000)}` : l10n.t('in about 10 minutes');
      const what = code === 'sms_rate_limited' ? l10n.t('Too many SMS codes were requested') : l10n.t('The SMS provider is limiting requests right now');
      return { code, message: l10n.t('{0}. Try again {1}, or use an authenticator app, e-mail or backup code.', what, when), actions: [] };
    }
  }
  if (err) {
    const actions = code
      ? (ACTIONS[code] ?? [])
      : err.kind === 'network' || err.kind === 'timeout' || err.kind === 'rate_limited' || (err.status ?? 0) >= 500
        ? ['retry' as const]
        : [];
    return { code, message: err.userMessage(), actions: [...actions] };
  }
  return {
    code,
    message: l10n.t('The 2FA request failed unexpectedly. Retry, and if it fails again open the log (GPU Rental: Show Output Log) for details.'),
    actions: ['retry'],
  };
}

/** What Sign In with 2FA says about the backup codes left (one sentence each for one and for several). */
export function backupCodesRemain(n: number): string {
  return n === 1 ? l10n.t('1 backup code remains; regenerate them when you run low.') : l10n.t('{0} backup codes remain; regenerate them when you run low.', n);
}

/** Why backup codes cannot be regenerated on an account without 2FA. */
export function noBackupCodesWithoutTfa(): string {
  return l10n.t(
    '2FA is not enabled on this account, so there are no backup codes. Add an authenticator app or SMS method first; you get backup codes with it.',
  );
}
