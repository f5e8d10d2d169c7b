// ApiError: every failure of the API layer, with a sentence a user can act on.
import type { ApiErrorKind } from './types';
import { redact } from './redact';
import * as l10n from '@vscode/l10n';

/** The transport's answer-size cap in MB (MAX_BODY_BYTES in transport.ts, which lives in its own bundle). */
export const MAX_ANSWER_MB = 8;

export interface ApiErrorInit {
  kind: ApiErrorKind;
  /** Developer-facing summary; never contains request bodies or headers. */
  message: string;
  status?: number;
  /** The service's `error` code. */
  code?: string;
  /** The service's `msg` (or 429 `detail`, or plain-text body), redacted. */
  msg?: string;
  failCount?: number;
  /** Epoch seconds. */
  lockedUntil?: number | null;
  method?: string;
  path?: string;
  /** Seconds the caller should wait before retrying, when known. */
  retryAfterSec?: number;
  /** Validation problems (kind 'invalid_request'), each prefixed with its field path. */
  problems?: string[];
  /** Underlying cause kind for 'ambiguous' errors: 'timeout' | 'network' | 'aborted' | 'http'. */
  cause?: string;
  /** Secret values to mask in message and msg besides the patterns (e.g. a reflected token). */
  secrets?: ReadonlyArray<string | undefined>;
  /** The error body was a JSON object (false for a web server's plain-text or HTML page). */
  jsonBody?: boolean;
}

function clock(epochSec: number): string {
  const d = new Date(epochSec * 1000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** Local HH:MM of an epoch-seconds time, as userMessage() shows it (exported for tests and UI). */
/** @internal test */
export const formatLocalTime = clock;

function lockSentence(lockedUntil: number | null | undefined, now: Date): string | undefined {
  if (typeof lockedUntil !== 'number' || !Number.isFinite(lockedUntil)) return undefined;
  if (lockedUntil * 1000 <= now.getTime()) return undefined;
  return l10n.t('This method is locked after too many wrong codes until {0} (local time). Use another method or a backup code, or wait.', clock(lockedUntil));
}

function waitPhrase(sec: number | undefined, fallback: string): string {
  if (sec === undefined || !Number.isFinite(sec) || sec <= 0) return fallback;
  if (sec < 90) return l10n.t('Wait {0} seconds and try again.', Math.ceil(sec));
  return l10n.t('Wait about {0} minutes and try again.', Math.ceil(sec / 60));
}

/** One human sentence per error code of the spec's 2FA table (plus no_such_ask). */
const CODE_MESSAGES: Record<string, (e: ApiError, now: Date) => string> = {
  bad_request: (e) => l10n.t('The service rejected the request as invalid{0}. Check the values you entered and try again.', e.msg ? ` (${e.msg})` : ''),
  auth_error: () =>
    l10n.t('The service did not accept your credentials (the API key is invalid or revoked, or the 2FA session expired). Sign in again with a valid API key.'),
  invalid_tfa_method: () => l10n.t('That 2FA method is not supported. Choose SMS, an authenticator app (TOTP) or e-mail and try again.'),
  missing_auth_value: () => l10n.t('A verification code or a backup code is required. Enter one and try again.'),
  missing_params: () => l10n.t('The code or its challenge is missing. Send a new code, then enter it.'),
  email_not_verified: () =>
    l10n.t(
      'Your account e-mail address is not verified yet, and 2FA codes can only be sent after it is. Open the verification link the service e-mailed you (or request a new one in the web console), then try again.',
    ),
  '2fa_expired': () => l10n.t('The code has expired (codes are valid for 10 minutes). Send a new code and enter it.'),
  challenge_not_found: () => l10n.t('No pending code request matches this one. Send a new code and try again.'),
  tfa_challenge_exists: () => l10n.t('A code was sent recently and is still valid. Use "Resend code" instead of requesting a new one.'),
  authorization_required: () =>
    l10n.t(
      'Adding a 2FA method needs a fresh authorization (valid for 30 minutes). Verify with an existing method or a backup code first, then add the method.',
    ),
  no_pending_authorization: () => l10n.t('There is no pending authorization to confirm. Start adding the method again to get a new code.'),
  invalid_backup_code: () => l10n.t('That backup code is invalid or was already used. Enter another unused backup code, or use a 2FA method.'),
  untracked_2fa_found: () =>
    l10n.t('Your account uses legacy 2FA, which this step cannot update. Regenerate your backup codes first, then set up the method again.'),
  duplicate_tfa_method: () => l10n.t('A 2FA method of this type is already configured. Update or remove the existing one instead of adding another.'),
  sms_provider_error: () => l10n.t('The SMS could not be delivered. Check the phone number and try again in a minute, or use another method.'),
  preauth_phone_cap: () => l10n.t('This phone number was used in too many authorization attempts. Use another method or number, or try again later.'),
  sms_rate_limited: (e) =>
    l10n.t(
      'Too many SMS codes were requested. {0}',
      waitPhrase(e.retryAfterSec, l10n.t('Wait a few minutes before requesting another, or use another method.')),
    ),
  tfa_locked: (e, now) =>
    lockSentence(e.lockedUntil, now) ??
    l10n.t('This method is locked for 15 minutes after too many wrong codes. Use another method or a backup code, or wait.'),
  service_unavailable: () => l10n.t('The service is temporarily unavailable. Wait a moment and retry.'),
  no_challenge_found: () => l10n.t('No active code request was found. Send a new code and try again.'),
  phone_number_mismatch: () => l10n.t('The phone number differs from the one the code was sent to. Use the same number, or start again with the new one.'),
  '2fa_login_failed': () =>
    l10n.t('The 2FA verification failed (wrong or expired code, or no phone number on the method). Check the code and try again, or send a new one.'),
  '2fa_verification_failed': (e, now) => {
    const lock = lockSentence(e.lockedUntil, now);
    if (lock) return l10n.t('The code is wrong. {0}', lock);
    if (e.failCount === 1)
      return l10n.t('The code is wrong (1 failed attempt so far). Check it and try again; too many wrong codes lock the method for 15 minutes.');
    if (typeof e.failCount === 'number')
      return l10n.t(
        'The code is wrong ({0} failed attempts so far). Check it and try again; too many wrong codes lock the method for 15 minutes.',
        e.failCount,
      );
    return l10n.t('The code is wrong. Check it and try again; too many wrong codes lock the method for 15 minutes.');
  },
  team_user_forbidden: () => l10n.t('2FA cannot be managed from a team context. Switch to your personal account context and try again.'),
  missing_email: () => l10n.t('Your account has no e-mail address, which this step needs. Add and verify one in the web console, then try again.'),
  missing_phone_number: () => l10n.t('A phone number is needed. Enter it in international format (for example +14155550123) and try again.'),
  not_found: () => l10n.t('That 2FA method no longer exists. Refresh the 2FA status and choose an existing method.'),
  tfa_method_not_configured: () =>
    l10n.t(
      'Your authenticator-app method is broken (its secret is missing). Reconfigure 2FA: remove it using another method or a backup code and set it up again.',
    ),
  challenge_creation_failed: () => l10n.t('The service could not start the verification. Wait a moment and retry.'),
  sms_blocked_number: () => l10n.t('SMS cannot be sent to this number (it is blocked as a high fraud risk). Use another number or an authenticator app.'),
  sms_fraud_detected: () =>
    l10n.t('SMS sending is disabled on this account after a fraud check. Use an authenticator app or e-mail instead, or contact support.'),
  sms_provider_rate_limited: (e) =>
    l10n.t('The SMS provider is rate-limiting requests. {0}', waitPhrase(e.retryAfterSec, l10n.t('Wait a few minutes and retry.'))),
  no_such_instance: () => l10n.t('The instance no longer exists (it may have been destroyed). Refresh the instance list.'),
  no_ssh_key: () => l10n.t('The service has no such SSH key (it was already removed, or the request carried no key). Refresh the SSH Keys list and try again.'),
  no_such_ssh_key: () => l10n.t('That SSH key is not attached to this instance. Refresh and try again.'),
  invalid_ssh_key: (e) =>
    l10n.t(
      'The service rejected the SSH key{0}. Register the public key (the .pub file, one line starting with ssh-ed25519, ecdsa-sha2-… or ssh-rsa).',
      e.msg ? ` (${e.msg})` : '',
    ),
  no_ssh_key_for_vm: () => l10n.t('A VM instance needs an SSH key on the account first. Add one (GPU Rental: Add SSH Key…), then try again.'),
  no_such_ask: () => l10n.t('The offer was just rented by someone else (it is no longer available). Pick another offer and try again.'),
  invalid_price: (e) =>
    l10n.t("The service rejected the bid price{0}. Raise the bid to at least the offer's minimum bid, or rent on demand.", e.msg ? ` (${e.msg})` : ''),
  own_machine: () => l10n.t('That offer is on one of your own machines, which you cannot rent. Pick another offer.'),
  deprecated_endpoint: () => l10n.t('The service no longer offers this endpoint. Update the extension; if it is current, report this.'),
  rate_limit_exceeded: (e) =>
    l10n.t('The service is limiting how often requests can be made. {0}', waitPhrase(e.retryAfterSec, l10n.t('Wait a few seconds and try again.'))),
  invalid_request: (e) => l10n.t('The service rejected the request as invalid{0}. Check the values and try again.', e.msg ? ` (${e.msg})` : ''),
  insecure_url: (e) =>
    l10n.t(
      'Nothing was sent: the service URL {0} uses plain http:// and is not on this computer, so your API key would travel in clear text. Change gpuRental.apiBaseUrl to an https:// URL (http:// is allowed only for 127.0.0.1, localhost or [::1]).',
      e.msg ?? '',
    ),
  not_visible_yet: () =>
    l10n.t(
      'The new instance is not visible in the service yet (new machines show up with a delay). It is being tracked; it appears in the list within a minute.',
    ),
};

/**
 * The live service names its SMS provider where the seed spec is neutral (service-today.md
 * section 9): both mean the same, so they are read as the seed's codes.
 */
const CODE_ALIASES: Record<string, string> = {
  twilio_error: 'sms_provider_error',
  twilio_rate_limited: 'sms_provider_rate_limited',
};

/** Error codes with a dedicated sentence (for tests and callers that branch on them). */
/** @internal test */
export const KNOWN_ERROR_CODES: readonly string[] = Object.keys(CODE_MESSAGES);

/** The one wording for "no key yet", whichever layer notices it (a function: translated when shown). */
export function notSignedIn(): string {
  return l10n.t('You are not signed in to GPU Rental. Run "GPU Rental: Set API Key" (or "Import API Key from the CLI", or "Try Demo Mode"), then try again.');
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status?: number;
  readonly code?: string;
  readonly msg?: string;
  readonly failCount?: number;
  readonly lockedUntil?: number | null;
  readonly method?: string;
  readonly path?: string;
  readonly retryAfterSec?: number;
  readonly problems?: string[];
  readonly causeKind?: string;
  readonly jsonBody?: boolean;

  constructor(init: ApiErrorInit) {
    super(redact(init.message, init.secrets));
    this.name = 'ApiError';
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.msg = init.msg === undefined ? undefined : redact(init.msg, init.secrets);
    this.failCount = init.failCount;
    this.lockedUntil = init.lockedUntil;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterSec = init.retryAfterSec;
    this.problems = init.problems;
    this.causeKind = init.cause;
    this.jsonBody = init.jsonBody;
  }

  /** A sentence for the user: what happened and what to do next. */
  userMessage(now: Date = new Date()): string {
    if (this.code && CODE_MESSAGES[this.code]) return CODE_MESSAGES[this.code]!(this, now);
    switch (this.kind) {
      case 'invalid_request':
        return this.problems && this.problems.length > 1
          ? l10n.t('The request was not sent because it is invalid: {0}. Correct these values and try again.', this.problems.join('; '))
          : l10n.t('The request was not sent because it is invalid: {0}. Correct this value and try again.', (this.problems ?? [this.message]).join('; '));
      case 'auth':
        return this.status === undefined ? notSignedIn() : CODE_MESSAGES.auth_error!(this, now);
      case 'rate_limited':
        return l10n.t('The service is limiting how often requests can be made. {0}', waitPhrase(this.retryAfterSec, l10n.t('Wait a minute and try again.')));
      case 'network':
        return l10n.t('Could not reach the service. Check your internet connection, proxy or the service URL setting, and try again.');
      case 'timeout':
        return l10n.t('The service did not answer in time. Check your connection and try again; if it keeps happening, the service may be overloaded.');
      case 'aborted':
        return l10n.t('The request was cancelled.');
      case 'malformed':
        return l10n.t(
          'The service sent an answer the extension does not understand{0}. Try again; if it persists, check for an extension update or report it.',
          this.path ? ` (${this.method ?? ''} ${this.path})`.replace('( ', '(') : '',
        );
      case 'too_large':
        return l10n.t(
          "The service's answer was too large to read (over {0} MB){1}, so it was not read. Try again; if it persists, check the service URL setting (gpuRental.apiBaseUrl) or report it.",
          MAX_ANSWER_MB,
          this.path ? ` (${this.method ?? ''} ${this.path})`.replace('( ', '(') : '',
        );
      case 'ambiguous':
        return l10n.t(
          'The creation request may have reached the service, but no answer came back, so it is unknown whether a machine was rented. The extension will check your instance list for it before doing anything else; do not create it again until that check is done.',
        );
      case 'http':
      default:
        break;
    }
    const s = this.status ?? 0;
    if (s === 403)
      return l10n.t(
        'Your API key does not have permission for this action. Use a key with the needed permissions (for example instance read and write) and try again.',
      );
    if (s === 403 && this.path?.startsWith('/api/v0/asks/')) return CODE_MESSAGES.own_machine!(this, now);
    if (s === 404) return l10n.t('The item was not found; it may have been destroyed. Refresh the list and try again.');
    if (s === 410 && this.path?.startsWith('/api/v0/asks/')) return CODE_MESSAGES.no_such_ask!(this, now);
    if (s === 410) return l10n.t('The service no longer offers this. Refresh and try again; if it persists, update the extension.');
    if (s >= 500)
      return l10n.t('The service had an internal problem (HTTP {0}). Wait a minute and try again; if it persists, check the service status page.', s);
    return l10n.t('The service rejected the request (HTTP {0}{1}). Check the values and try again.', s, this.msg ? `: ${this.msg}` : '');
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError || (e instanceof Error && e.name === 'ApiError' && 'kind' in e);
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** The parts of an error body the service sends: {success:false,error,msg}, {detail} or text. */
export interface ParsedErrorBody {
  code?: string;
  msg?: string;
  failCount?: number;
  lockedUntil?: number | null;
  /** True when the body is a structured error (proves the server rejected the request). */
  structured: boolean;
  /** The body was a JSON object (a plain 404 from a web server is not). */
  json?: boolean;
}

export function parseErrorBody(text: string): ParsedErrorBody {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const j = JSON.parse(trimmed) as Record<string, unknown>;
      if (j && typeof j === 'object') {
        const raw = typeof j.error === 'string' ? j.error : undefined;
        const code = raw !== undefined ? (CODE_ALIASES[raw] ?? raw) : undefined;
        const msg = typeof j.msg === 'string' ? j.msg : typeof j.detail === 'string' ? j.detail : typeof j.message === 'string' ? j.message : undefined;
        const lockedUntil = j.locked_until === null ? null : num(j.locked_until);
        return {
          code,
          msg,
          failCount: num(j.fail_count),
          lockedUntil,
          structured: code !== undefined || msg !== undefined,
          json: true,
        };
      }
    } catch {
      // not JSON: fall through to plain text
    }
  }
  const plain = trimmed
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return { msg: plain ? plain.slice(0, 200) : undefined, structured: false };
}

/** Builds the ApiError for an HTTP error status. */
export function errorFromResponse(
  method: string,
  path: string,
  status: number,
  text: string,
  retryAfterSec?: number,
  secrets?: ReadonlyArray<string | undefined>,
): ApiError {
  const b = parseErrorBody(text);
  let kind: ApiErrorKind = 'http';
  // Judge by the body's error first: auth_error means signed out whatever the status (the live
  // service answers a bad key on instance paths with 404), an expired session may say so in words.
  if (status === 429 || b.code === 'rate_limit_exceeded') kind = 'rate_limited';
  else if (
    b.code === 'auth_error' ||
    (status === 401 && (b.code === undefined || b.code === 'missing_auth_value')) ||
    ((status === 401 || status === 404) && b.code === undefined && /\b(invalid user key|session expired)\b/i.test(b.msg ?? ''))
  )
    kind = 'auth';
  const detail = [b.code, b.msg].filter(Boolean).join(': ');
  return new ApiError({
    kind,
    status,
    code: b.code,
    msg: b.msg,
    failCount: b.failCount,
    lockedUntil: b.lockedUntil,
    method,
    path,
    retryAfterSec,
    secrets,
    jsonBody: b.json === true,
    message: `${method} ${path} failed with HTTP ${status}${detail ? ` (${detail})` : ''}`,
  });
}
