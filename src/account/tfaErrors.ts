// Turns a failed 2FA call into one sentence saying what happened and what to do next,
// plus the follow-up actions a flow can offer. The API layer's ApiError.userMessage()
// covers transport failures (network, timeout, auth); the 2FA table of the spec is
// specific enough to deserve flow-aware wording here.
import type { TfaMethod } from '../api/types';

/** The fields of the API layer's ApiError that the flows read (duck-typed on purpose). */
export interface ApiErrorLike {
  kind: string;
  status?: number;
  code?: string;
  msg?: string;
  failCount?: number;
  lockedUntil?: number;
  userMessage?(): string;
}

export function asApiError(e: unknown): ApiErrorLike | undefined {
  if (typeof e === 'object' && e !== null && typeof (e as { kind?: unknown }).kind === 'string') return e as ApiErrorLike;
  return undefined;
}

export function errorCode(e: unknown): string | undefined {
  return asApiError(e)?.code;
}

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
  if (!m) return 'this method';
  const kind = m.method === 'totp' ? 'authenticator app' : m.method === 'sms' ? `SMS${m.phone_number ? ` to ${m.phone_number}` : ''}` : m.method;
  return m.label ? `"${m.label}" (${kind})` : kind;
}

function defaultTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

const STATIC: Record<string, [string, TfaErrorAction[]]> = {
  bad_request: ['The service rejected the request as malformed. Check the values you entered and try again; if it keeps happening, report it with the log.', ['tryAgain']],
  auth_error: ['The service did not accept your credentials (the API key is invalid or the 2FA session expired). Sign in again with your API key, then retry.', []],
  invalid_tfa_method: ['That 2FA method type is not supported. Choose an authenticator app, SMS, e-mail or a backup code.', ['tryAgain']],
  missing_auth_value: ['No code or backup code was sent. Enter the 6-digit code or a backup code and try again.', ['tryAgain']],
  missing_params: ['The code and its challenge were missing. Request a new code and try again.', ['newCode']],
  email_not_verified: ['Your account e-mail address is not verified, and 2FA codes can only be sent to a verified address. Verify it from the link in the e-mail the service sent you (or in the web console), then try again.', []],
  '2fa_expired': ['The code has expired (codes are valid for 10 minutes). Send a new code and enter it.', ['newCode']],
  challenge_not_found: ['The service has no record of that code request. Send a new code and enter it.', ['newCode']],
  no_challenge_found: ['There is no active code request for this step. Send a new code and enter it.', ['newCode']],
  tfa_challenge_exists: ['A code was sent to this phone moments ago. Resend that code instead of requesting a new one.', ['resend']],
  authorization_required: ['Adding a 2FA method needs a fresh authorization (it lasts 30 minutes). Authorize again, then add the method.', ['retry']],
  no_pending_authorization: ['There is no pending authorization to confirm (it may have expired). Start the authorization again.', ['retry']],
  invalid_backup_code: ['That backup code is invalid or has already been used (each code works once). Enter another unused backup code.', ['tryAgain']],
  untracked_2fa_found: ['This is a legacy 2FA account. Regenerate your backup codes first (Regenerate Backup Codes), then try again.', []],
  duplicate_tfa_method: ['A method of that type is already configured. Remove or rename the existing one instead of adding another.', []],
  sms_provider_error: ['The SMS could not be delivered. Check the phone number, then try again, or use another method.', ['retry']],
  preauth_phone_cap: ['This phone number has been used in too many authorization attempts. Try again later, or use a different number or method.', []],
  phone_number_mismatch: ['The phone number differs from the one the code was sent to. Use the same number, or send a new code to the new number.', ['newCode']],
  '2fa_login_failed': ['Verification failed: the code was wrong or the method has no phone number. Check the code and try again.', ['tryAgain']],
  team_user_forbidden: ['2FA settings cannot be changed from a team context. Switch to your personal context (use your personal API key), then try again.', []],
  missing_email: ['Your account has no e-mail address, which this step needs. Add one in the web console, then try again.', []],
  missing_phone_number: ['No phone number was given and none is on file. Enter a phone number in E.164 format (for example +14155550123).', ['tryAgain']],
  not_found: ['That 2FA method no longer exists on your account. Refresh the Account view and choose again.', []],
  tfa_method_not_configured: ['Your authenticator-app method is damaged (its secret is missing on the service). Remove it and set up the authenticator app again.', []],
  challenge_creation_failed: ['The service could not create the authorization challenge. Retry in a moment.', ['retry']],
  service_unavailable: ['The 2FA service is temporarily unavailable. Retry in a moment.', ['retry']],
  sms_blocked_number: ['This phone number is blocked for SMS (flagged as high fraud risk). Use a different number or an authenticator app.', []],
  sms_fraud_detected: ['SMS sending is disabled for this account (flagged for SMS fraud). Contact support to clear it, or use an authenticator app meanwhile.', []],
};

/** Describes a failed 2FA call. Never includes codes, secrets or keys. */
export function describeTfaError(e: unknown, ctx: TfaErrorContext = {}): TfaErrorInfo {
  const err = asApiError(e);
  const fmt = ctx.formatTime ?? defaultTime;
  const now = ctx.now ?? Date.now();
  const code = err?.code;
  const who = ctx.via === 'email' ? 'e-mail code' : ctx.via === 'backup' ? 'backup code' : methodName(ctx.method);
  switch (code) {
    case 'tfa_locked': {
      const until = err?.lockedUntil ?? ctx.method?.locked_until ?? undefined;
      const end = until ? ` until ${fmt(until * 1000)}` : ' for 15 minutes';
      return { code, message: `Too many wrong codes: ${who} is locked${end}. Wait until then, or verify with another method, an e-mail code or a backup code.`, actions: [] };
    }
    case '2fa_verification_failed': {
      const n = err?.failCount;
      const tail = err?.lockedUntil ? ` ${who} is now locked until ${fmt(err.lockedUntil * 1000)}; use another method meanwhile.` : ' Check the code (authenticator codes change every 30 seconds) and try again.';
      return { code, message: `The code for ${who} was not accepted${n ? ` (${n} failed attempt${n === 1 ? '' : 's'})` : ''}.${tail}`, actions: err?.lockedUntil ? [] : ['tryAgain'] };
    }
    case 'sms_rate_limited':
    case 'sms_provider_rate_limited': {
      const when = err?.lockedUntil ? `after ${fmt(err.lockedUntil * 1000)}` : 'in a few minutes';
      const what = code === 'sms_rate_limited' ? 'Too many SMS codes were requested' : 'The SMS provider is limiting requests right now';
      return { code, message: `${what}. Try again ${when}, or use an authenticator app, e-mail or backup code.`, actions: [] };
    }
  }
  if (code && STATIC[code]) {
    const [message, actions] = STATIC[code];
    return { code, message, actions: [...actions] };
  }
  if (err?.kind === 'rate_limited') {
    return { code, message: 'The service is receiving too many requests from you. Wait a minute, then retry.', actions: ['retry'] };
  }
  if (err && (err.kind === 'network' || err.kind === 'timeout')) {
    const base = err.userMessage?.() ?? 'The service could not be reached.';
    return { code, message: /retry|try again|check/i.test(base) ? base : `${base} Check your connection, then retry.`, actions: ['retry'] };
  }
  if (err?.userMessage) return { code, message: err.userMessage(), actions: err.kind === 'aborted' ? [] : ['retry'] };
  if (err?.status && err.status >= 500) return { code, message: 'The service failed to handle the request. Retry in a moment.', actions: ['retry'] };
  return { code, message: 'The 2FA request failed unexpectedly. Retry, and if it fails again open the log (GPU Rental: Show Log) for details.', actions: ['retry'] };
}
