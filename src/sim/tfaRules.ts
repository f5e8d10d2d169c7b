// The rules of the simulator's two-factor authentication (tfaState.ts has its endpoints):
// challenges (SMS/e-mail codes in an outbox), per-method lockout, TOTP and backup codes, the
// verification every protected call runs, and the error codes of each era.
import { randomInt } from 'node:crypto';
import { SimFail, fail } from './simError';
import { randomKey, type Challenge, type SimState, type TfaMethodRow } from './state';
import { verifyTotp } from './totp';

export const CHALLENGE_SECONDS = 600;
export const WINDOW_SECONDS = 1800;
const LOCK_SECONDS = 900;
const MAX_FAILS = 5;
const SMS_RESEND_GAP = 60;
const SMS_PER_HOUR = 10;
const E164 = /^\+[1-9]\d{6,14}$/;
const BACKUP_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export type Body = Record<string, unknown>;
export type Reply = { status: number; body: unknown };

export function tfaStatusOf(state: SimState): 'enabled' | 'disabled' | 'legacy' {
  if (!state.tfa.enabled) return 'disabled';
  return state.user.legacy && state.tfa.methods.length === 0 ? 'legacy' : 'enabled';
}

export function userRecord(state: SimState): Record<string, unknown> {
  const u = state.user;
  return {
    id: u.id,
    email: u.email,
    credit: Math.round(u.credit * 10000) / 10000,
    ssh_key: u.ssh_key,
    full_name: u.full_name,
    // The live service's published schema: balance, and the CLI's fullname, beside the seed's names.
    ...(state.era === 'today' ? { balance: Math.round(u.credit * 10000) / 10000, fullname: u.full_name } : {}),
    tfa_status: tfaStatusOf(state),
    email_verified_at: u.emailVerified ? 1700000000 : null,
  };
}

export function maskPhone(p: string | null): string | null {
  return p ? `${'*'.repeat(Math.max(0, p.length - 4))}${p.slice(-4)}` : null;
}

export function publicMethod(state: SimState, m: TfaMethodRow): Record<string, unknown> {
  return {
    id: m.id,
    user_id: state.user.id,
    method: m.method,
    label: m.label,
    phone_number: m.method === 'sms' ? maskPhone(m.phone) : null,
    is_primary: m.is_primary,
    fail_count: m.fail_count,
    locked_until: m.locked_until,
    created_at: m.created_at,
    last_used: m.last_used,
  };
}

// ---- body field readers -------------------------------------------------------------------

export function str(b: Body, k: string): string | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw fail(400, 'bad_request', `${k} must be a string.`);
  return v;
}

export function int(b: Body, k: string): number | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw fail(400, 'bad_request', `${k} must be an integer.`);
  return n;
}

export function bool(b: Body, k: string): boolean | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw fail(400, 'bad_request', `${k} must be true or false.`);
  return v;
}

export function methodEnum(b: Body, allowed: string[]): string | undefined {
  const m = str(b, 'tfa_method');
  if (m === undefined) return undefined;
  if (!allowed.includes(m)) {
    throw fail(400, 'invalid_tfa_method', `tfa_method '${m.slice(0, 20)}' is not supported here; use ${allowed.join(', ')}.`);
  }
  return m;
}

export function label(b: Body): string | undefined {
  const l = str(b, 'label');
  if (l !== undefined && l.length > 30) throw fail(400, 'bad_request', `label is ${l.length} characters; the limit is 30.`);
  return l;
}

export function phoneArg(b: Body): string | undefined {
  const p = str(b, 'phone_number');
  if (p === undefined) return undefined;
  if (!E164.test(p)) throw fail(400, 'bad_request', 'phone_number must be in E.164 format, for example +14155550123.');
  return p;
}

// ---- challenges ---------------------------------------------------------------------------

export function newCode(): string {
  return String(randomInt(0, 1000000)).padStart(6, '0');
}

export function newBackupCodes(): string[] {
  const part = () => Array.from({ length: 4 }, () => BACKUP_ALPHABET[randomInt(0, BACKUP_ALPHABET.length)]).join('');
  return Array.from({ length: 10 }, () => `${part()}-${part()}-${part()}`);
}

export function deliver(state: SimState, ch: Challenge): void {
  state.outbox.push({ channel: ch.channel, to: ch.to, code: ch.code, secret: ch.secret, at: state.now() });
}

export function requireVerifiedEmail(state: SimState): void {
  if (!state.user.emailVerified) {
    throw fail(400, 'email_not_verified', 'Your e-mail address is not verified. Verify it from the confirmation e-mail, then try again.');
  }
}

export function emailChallenge(state: SimState, secret = randomKey(16)): Challenge {
  requireVerifiedEmail(state);
  if (!state.user.email) throw fail(400, 'missing_email', 'No e-mail address is set on this account. Add one in account settings.');
  const now = state.now();
  const ch: Challenge = {
    secret,
    channel: 'email',
    code: newCode(),
    to: state.user.email,
    createdAt: now,
    expiresAt: now + CHALLENGE_SECONDS,
    phone: null,
    methodId: null,
    used: false,
  };
  state.tfa.challenges.set(ch.secret, ch);
  deliver(state, ch);
  return ch;
}

export function checkPhoneSendable(state: SimState, phone: string): void {
  if (state.blockedPrefixes.some((p) => phone.startsWith(p))) {
    throw fail(400, 'sms_blocked_number', 'This phone number cannot receive verification codes. Use another number or an authenticator app.');
  }
  const now = state.now();
  const recent = state.outbox.filter((m) => m.channel === 'sms' && m.to === phone && m.at > now - 3600).length;
  if (recent >= SMS_PER_HOUR) throw fail(429, 'sms_rate_limited', 'Too many SMS codes were requested. Wait an hour or use another method.');
}

export function smsChallenge(state: SimState, phone: string, methodId: number | null, opts: { admin?: boolean; secret?: string } = {}): Challenge {
  if (!opts.admin) requireVerifiedEmail(state);
  checkPhoneSendable(state, phone);
  const now = state.now();
  const last = state.tfa.lastSmsAt.get(phone);
  const live = [...state.tfa.challenges.values()].some((c) => c.channel === 'sms' && c.phone === phone && !c.used && c.expiresAt > now);
  if (last !== undefined && now - last < SMS_RESEND_GAP && live) {
    throw fail(400, 'tfa_challenge_exists', 'A code was sent to this number moments ago. Use resend instead of requesting a new code.');
  }
  const ch: Challenge = {
    secret: opts.secret ?? randomKey(16),
    channel: 'sms',
    code: newCode(),
    to: phone,
    createdAt: now,
    expiresAt: now + CHALLENGE_SECONDS,
    phone,
    methodId,
    used: false,
  };
  state.tfa.challenges.set(ch.secret, ch);
  state.tfa.lastSmsAt.set(phone, now);
  deliver(state, ch);
  return ch;
}

export function challenge(state: SimState, secret: string, channel: 'sms' | 'email'): Challenge {
  const ch = state.tfa.challenges.get(secret);
  if (!ch || ch.used || ch.channel !== channel) {
    throw fail(400, 'challenge_not_found', 'No verification code matches this request. Request a new code.');
  }
  if (ch.expiresAt <= state.now()) throw fail(400, '2fa_expired', 'The code expired (codes last 10 minutes). Request a new code.');
  return ch;
}

// ---- methods and verification -------------------------------------------------------------

export function unlockExpired(state: SimState): void {
  const now = state.now();
  for (const m of state.tfa.methods) {
    if (m.locked_until !== null && m.locked_until <= now) {
      m.locked_until = null;
      m.fail_count = 0;
    }
  }
}

export function methodById(state: SimState, id: number): TfaMethodRow {
  const m = state.tfa.methods.find((x) => x.id === id);
  if (!m) throw fail(404, 'not_found', `No 2FA method ${id} on this account. Refresh the method list.`);
  return m;
}

/** The row of a type: by id, else the only/primary one; undefined when none. */
export function methodOfType(state: SimState, type: 'sms' | 'totp', id: number | undefined): TfaMethodRow | undefined {
  if (id !== undefined) {
    const m = methodById(state, id);
    if (m.method !== type) throw fail(404, 'not_found', `2FA method ${id} is not a ${type} method.`);
    return m;
  }
  const rows = state.tfa.methods.filter((m) => m.method === type);
  return rows.find((m) => m.is_primary) ?? rows[0];
}

export function checkLocked(state: SimState, m: TfaMethodRow): void {
  if (m.locked_until !== null && m.locked_until > state.now()) {
    throw fail(
      429,
      'tfa_locked',
      `This 2FA method is locked after too many failed attempts. Try again after ${new Date(m.locked_until * 1000).toISOString()} or use another method.`,
      {
        fail_count: m.fail_count,
        locked_until: m.locked_until,
      },
    );
  }
}

export function failAttempt(state: SimState, m: TfaMethodRow | null, code: string): SimFail {
  if (!m) return fail(400, code, 'The code is wrong. Check it and try again.', { fail_count: null, locked_until: null });
  m.fail_count++;
  if (m.fail_count >= MAX_FAILS) m.locked_until = Math.floor(state.now()) + LOCK_SECONDS;
  return fail(400, code, m.locked_until ? 'The code is wrong; this method is now locked for 15 minutes.' : 'The code is wrong. Check it and try again.', {
    fail_count: m.fail_count,
    locked_until: m.locked_until,
  });
}

export function succeed(state: SimState, m: TfaMethodRow | null): void {
  if (!m) return;
  m.fail_count = 0;
  m.locked_until = null;
  m.last_used = Math.floor(state.now());
}

export function useBackupCode(state: SimState, code: string): void {
  const norm = code.trim().toUpperCase();
  const hit = state.tfa.backupCodes.find((c) => !c.used && !c.deleted && c.code === norm);
  if (!hit) throw fail(401, 'invalid_backup_code', 'The backup code is invalid or was already used. Use another code.');
  hit.used = true;
}

interface Verified {
  via: 'backup' | 'sms' | 'totp' | 'email';
  method: TfaMethodRow | null;
}

/**
 * Verifies a code (method code or backup code) as login, removal, regeneration and
 * authorization do. `wrong` is the error code of a wrong code.
 */
export function verify(state: SimState, b: Body, wrong: '2fa_login_failed' | '2fa_verification_failed'): Verified {
  const backup = str(b, 'backup_code');
  if (backup !== undefined) {
    useBackupCode(state, backup);
    return { via: 'backup', method: null };
  }
  const type = (methodEnum(b, ['sms', 'totp', 'email']) ?? 'sms') as 'sms' | 'totp' | 'email';
  const id = int(b, 'tfa_method_id');
  const code = str(b, 'code');
  const secret = str(b, 'secret');
  if (code === undefined && secret === undefined && type !== 'totp') {
    throw fail(400, 'missing_params', 'code and secret are required: request a code first, then send both.');
  }
  if (code === undefined) throw fail(400, 'missing_auth_value', 'code (or backup_code) is required.');

  if (type === 'email') {
    if (secret === undefined) throw fail(400, 'missing_params', 'secret is required with an e-mail code: send the secret returned when the code was sent.');
    const ch = challenge(state, secret, 'email');
    if (ch.code !== code) {
      state.tfa.emailFails++;
      throw fail(400, wrong, 'The e-mail code is wrong. Check it and try again.', { fail_count: null, locked_until: null });
    }
    ch.used = true;
    return { via: 'email', method: null };
  }
  if (type === 'totp') {
    const m = methodOfType(state, 'totp', id);
    if (!m) throw fail(400, wrong, 'No authenticator app is set up on this account. Use another method.');
    checkLocked(state, m);
    if (!m.totpSecret) throw fail(400, 'tfa_method_not_configured', 'The authenticator method is damaged. Remove it and set it up again.');
    if (!verifyTotp(m.totpSecret, code, state.now())) throw failAttempt(state, m, wrong);
    succeed(state, m);
    return { via: 'totp', method: m };
  }
  // sms
  let m = methodOfType(state, 'sms', id) ?? null;
  if (!m && !(state.user.legacy && state.tfa.enabled && state.tfa.methods.length === 0)) {
    throw fail(400, wrong, 'No SMS method is set up on this account. Use another method.');
  }
  if (!m && !state.user.phone) throw fail(400, '2fa_login_failed', 'No phone number is on file for this account. Contact support.');
  if (m) checkLocked(state, m);
  if (secret === undefined) throw fail(400, 'missing_params', 'secret is required with an SMS code: send the secret returned when the code was sent.');
  const ch = challenge(state, secret, 'sms');
  if (id === undefined && ch.methodId !== null) {
    m = state.tfa.methods.find((x) => x.id === ch.methodId) ?? m;
    if (m) checkLocked(state, m);
  }
  const phone = m ? m.phone : state.user.phone;
  if (ch.phone !== phone) throw fail(400, 'phone_number_mismatch', 'The code was sent to a different number than this method uses. Request a new code.');
  if (ch.code !== code) throw failAttempt(state, m, wrong);
  ch.used = true;
  succeed(state, m);
  return { via: 'sms', method: m };
}

const TFA_STATUS: Record<string, number> = {
  bad_request: 400,
  auth_error: 403,
  invalid_tfa_method: 400,
  missing_auth_value: 400,
  missing_params: 400,
  email_not_verified: 400,
  '2fa_expired': 400,
  challenge_not_found: 400,
  tfa_challenge_exists: 400,
  authorization_required: 403,
  no_pending_authorization: 400,
  invalid_backup_code: 401,
  untracked_2fa_found: 400,
  duplicate_tfa_method: 400,
  sms_provider_error: 400,
  preauth_phone_cap: 429,
  sms_rate_limited: 429,
  tfa_locked: 429,
  service_unavailable: 503,
  no_challenge_found: 400,
  phone_number_mismatch: 400,
  '2fa_login_failed': 400,
  '2fa_verification_failed': 400,
  team_user_forbidden: 403,
  missing_email: 400,
  missing_phone_number: 400,
  not_found: 404,
  tfa_method_not_configured: 400,
  challenge_creation_failed: 500,
  sms_blocked_number: 400,
  sms_fraud_detected: 403,
  sms_provider_rate_limited: 429,
};

/** The live service names its SMS provider in these codes where the seed is neutral. */
const TODAY_SMS_CODES: Record<string, string> = { sms_provider_error: 'twilio_error', sms_provider_rate_limited: 'twilio_rate_limited' };

/** The error of a `tfa_error` fault, with the status the spec gives that code (and the era's SMS-provider names). */
export function tfaInjected(state: SimState, injected: string): SimFail {
  const error = state.era === 'today' ? (TODAY_SMS_CODES[injected] ?? injected) : injected;
  const seedName = Object.entries(TODAY_SMS_CODES).find(([, v]) => v === injected)?.[0];
  const extra = error === 'tfa_locked' || error === '2fa_verification_failed' ? { fail_count: 5, locked_until: null } : {};
  return fail(TFA_STATUS[seedName ?? injected] ?? 400, error, `Injected 2FA error '${error}'.`, extra);
}
