// The two-factor authentication state machine of the spec: challenges (SMS/e-mail codes in
// an outbox), the add-method authorization window, TOTP, backup codes, per-method lockout,
// login sessions, removal, legacy accounts and the deprecated paths.
import { randomInt } from 'node:crypto';
import { SimFail, fail } from './simError';
import type { Principal } from './server';
import { randomKey, type Challenge, type SimState, type TfaMethodRow } from './state';
import { base32Decode, newTotpSecret, verifyTotp } from './totp';

const CHALLENGE_SECONDS = 600;
const WINDOW_SECONDS = 1800;
const LOCK_SECONDS = 900;
const MAX_FAILS = 5;
const SMS_RESEND_GAP = 60;
const SMS_PER_HOUR = 10;
const E164 = /^\+[1-9]\d{6,14}$/;
const BACKUP_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

type Body = Record<string, unknown>;
type Reply = { status: number; body: unknown };

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

function maskPhone(p: string | null): string | null {
  return p ? `${'*'.repeat(Math.max(0, p.length - 4))}${p.slice(-4)}` : null;
}

function publicMethod(state: SimState, m: TfaMethodRow): Record<string, unknown> {
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

function str(b: Body, k: string): string | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw fail(400, 'bad_request', `${k} must be a string.`);
  return v;
}

function int(b: Body, k: string): number | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw fail(400, 'bad_request', `${k} must be an integer.`);
  return n;
}

function bool(b: Body, k: string): boolean | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw fail(400, 'bad_request', `${k} must be true or false.`);
  return v;
}

function methodEnum(b: Body, allowed: string[]): string | undefined {
  const m = str(b, 'tfa_method');
  if (m === undefined) return undefined;
  if (!allowed.includes(m)) {
    throw fail(400, 'invalid_tfa_method', `tfa_method '${m.slice(0, 20)}' is not supported here; use ${allowed.join(', ')}.`);
  }
  return m;
}

function label(b: Body): string | undefined {
  const l = str(b, 'label');
  if (l !== undefined && l.length > 30) throw fail(400, 'bad_request', `label is ${l.length} characters; the limit is 30.`);
  return l;
}

function phoneArg(b: Body): string | undefined {
  const p = str(b, 'phone_number');
  if (p === undefined) return undefined;
  if (!E164.test(p)) throw fail(400, 'bad_request', 'phone_number must be in E.164 format, for example +14155550123.');
  return p;
}

// ---- challenges ---------------------------------------------------------------------------

function newCode(): string {
  return String(randomInt(0, 1000000)).padStart(6, '0');
}

function newBackupCodes(): string[] {
  const part = () => Array.from({ length: 4 }, () => BACKUP_ALPHABET[randomInt(0, BACKUP_ALPHABET.length)]).join('');
  return Array.from({ length: 10 }, () => `${part()}-${part()}-${part()}`);
}

function deliver(state: SimState, ch: Challenge): void {
  state.outbox.push({ channel: ch.channel, to: ch.to, code: ch.code, secret: ch.secret, at: state.now() });
}

function requireVerifiedEmail(state: SimState): void {
  if (!state.user.emailVerified) {
    throw fail(400, 'email_not_verified', 'Your e-mail address is not verified. Verify it from the confirmation e-mail, then try again.');
  }
}

function emailChallenge(state: SimState, secret = randomKey(16)): Challenge {
  requireVerifiedEmail(state);
  if (!state.user.email) throw fail(400, 'missing_email', 'No e-mail address is set on this account. Add one in account settings.');
  const now = state.now();
  const ch: Challenge = {
    secret, channel: 'email', code: newCode(), to: state.user.email, createdAt: now,
    expiresAt: now + CHALLENGE_SECONDS, phone: null, methodId: null, used: false,
  };
  state.tfa.challenges.set(ch.secret, ch);
  deliver(state, ch);
  return ch;
}

function checkPhoneSendable(state: SimState, phone: string): void {
  if (state.blockedPrefixes.some((p) => phone.startsWith(p))) {
    throw fail(400, 'sms_blocked_number', 'This phone number cannot receive verification codes. Use another number or an authenticator app.');
  }
  const now = state.now();
  const recent = state.outbox.filter((m) => m.channel === 'sms' && m.to === phone && m.at > now - 3600).length;
  if (recent >= SMS_PER_HOUR) throw fail(429, 'sms_rate_limited', 'Too many SMS codes were requested. Wait an hour or use another method.');
}

function smsChallenge(state: SimState, phone: string, methodId: number | null, opts: { admin?: boolean; secret?: string } = {}): Challenge {
  if (!opts.admin) requireVerifiedEmail(state);
  checkPhoneSendable(state, phone);
  const now = state.now();
  const last = state.tfa.lastSmsAt.get(phone);
  const live = [...state.tfa.challenges.values()].some((c) => c.channel === 'sms' && c.phone === phone && !c.used && c.expiresAt > now);
  if (last !== undefined && now - last < SMS_RESEND_GAP && live) {
    throw fail(400, 'tfa_challenge_exists', 'A code was sent to this number moments ago. Use resend instead of requesting a new code.');
  }
  const ch: Challenge = {
    secret: opts.secret ?? randomKey(16), channel: 'sms', code: newCode(), to: phone, createdAt: now,
    expiresAt: now + CHALLENGE_SECONDS, phone, methodId, used: false,
  };
  state.tfa.challenges.set(ch.secret, ch);
  state.tfa.lastSmsAt.set(phone, now);
  deliver(state, ch);
  return ch;
}

function challenge(state: SimState, secret: string, channel: 'sms' | 'email'): Challenge {
  const ch = state.tfa.challenges.get(secret);
  if (!ch || ch.used || ch.channel !== channel) {
    throw fail(400, 'challenge_not_found', 'No verification code matches this request. Request a new code.');
  }
  if (ch.expiresAt <= state.now()) throw fail(400, '2fa_expired', 'The code expired (codes last 10 minutes). Request a new code.');
  return ch;
}

// ---- methods and verification -------------------------------------------------------------

function unlockExpired(state: SimState): void {
  const now = state.now();
  for (const m of state.tfa.methods) {
    if (m.locked_until !== null && m.locked_until <= now) {
      m.locked_until = null;
      m.fail_count = 0;
    }
  }
}

function methodById(state: SimState, id: number): TfaMethodRow {
  const m = state.tfa.methods.find((x) => x.id === id);
  if (!m) throw fail(404, 'not_found', `No 2FA method ${id} on this account. Refresh the method list.`);
  return m;
}

/** The row of a type: by id, else the only/primary one; undefined when none. */
function methodOfType(state: SimState, type: 'sms' | 'totp', id: number | undefined): TfaMethodRow | undefined {
  if (id !== undefined) {
    const m = methodById(state, id);
    if (m.method !== type) throw fail(404, 'not_found', `2FA method ${id} is not a ${type} method.`);
    return m;
  }
  const rows = state.tfa.methods.filter((m) => m.method === type);
  return rows.find((m) => m.is_primary) ?? rows[0];
}

function checkLocked(state: SimState, m: TfaMethodRow): void {
  if (m.locked_until !== null && m.locked_until > state.now()) {
    throw fail(429, 'tfa_locked', `This 2FA method is locked after too many failed attempts. Try again after ${new Date(m.locked_until * 1000).toISOString()} or use another method.`, {
      fail_count: m.fail_count,
      locked_until: m.locked_until,
    });
  }
}

function failAttempt(state: SimState, m: TfaMethodRow | null, code: string): SimFail {
  if (!m) return fail(400, code, 'The code is wrong. Check it and try again.', { fail_count: null, locked_until: null });
  m.fail_count++;
  if (m.fail_count >= MAX_FAILS) m.locked_until = Math.floor(state.now()) + LOCK_SECONDS;
  return fail(400, code, m.locked_until ? 'The code is wrong; this method is now locked for 15 minutes.' : 'The code is wrong. Check it and try again.', {
    fail_count: m.fail_count,
    locked_until: m.locked_until,
  });
}

function succeed(state: SimState, m: TfaMethodRow | null): void {
  if (!m) return;
  m.fail_count = 0;
  m.locked_until = null;
  m.last_used = Math.floor(state.now());
}

function useBackupCode(state: SimState, code: string): void {
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
function verify(state: SimState, b: Body, wrong: '2fa_login_failed' | '2fa_verification_failed'): Verified {
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
  bad_request: 400, auth_error: 403, invalid_tfa_method: 400, missing_auth_value: 400, missing_params: 400,
  email_not_verified: 400, '2fa_expired': 400, challenge_not_found: 400, tfa_challenge_exists: 400,
  authorization_required: 403, no_pending_authorization: 400, invalid_backup_code: 401, untracked_2fa_found: 400,
  duplicate_tfa_method: 400, sms_provider_error: 400, preauth_phone_cap: 429, sms_rate_limited: 429, tfa_locked: 429,
  service_unavailable: 503, no_challenge_found: 400, phone_number_mismatch: 400, '2fa_login_failed': 400,
  '2fa_verification_failed': 400, team_user_forbidden: 403, missing_email: 400, missing_phone_number: 400,
  not_found: 404, tfa_method_not_configured: 400, challenge_creation_failed: 500, sms_blocked_number: 400,
  sms_fraud_detected: 403, sms_provider_rate_limited: 429,
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

// ---- endpoints ----------------------------------------------------------------------------

function sendSms(state: SimState, b: Body, who: Principal | undefined): Reply {
  const id = int(b, 'tfa_method_id');
  const phoneIn = phoneArg(b);
  const secret = str(b, 'secret');
  if (!who) {
    // logged-out UI flow: the secret names the challenge to send again
    if (secret === undefined) throw fail(401, 'missing_auth_value', 'No authentication given: send a bearer token or the tfa_secret from login.');
    if (state.loginSecrets.has(secret)) {
      // first send of a logged-out login: the login's tfa_secret names the challenge
      const m = id !== undefined ? methodById(state, id) : methodOfType(state, 'sms', undefined);
      const phone = m?.phone ?? state.user.phone;
      if (!phone) throw fail(400, 'missing_phone_number', 'No phone number is on file for this account. Use another method.');
      if (phoneIn !== undefined && phoneIn !== phone) throw fail(400, 'phone_number_mismatch', 'phone_number differs from the number on file.');
      smsChallenge(state, phone, m?.id ?? null, { admin: state.user.admin, secret });
      return { status: 200, body: { success: true, msg: `Code sent to ${maskPhone(phone)}.`, secret } };
    }
    const ch = challenge(state, secret, 'sms');
    ch.code = newCode();
    deliver(state, ch);
    return { status: 200, body: { success: true, msg: 'Code sent.', secret: ch.secret } };
  }
  let phone: string | undefined;
  let methodId: number | null = null;
  if (id !== undefined) {
    const m = methodById(state, id);
    if (m.method !== 'sms') throw fail(404, 'not_found', `2FA method ${id} is not an SMS method.`);
    if (phoneIn !== undefined && phoneIn !== m.phone) throw fail(400, 'phone_number_mismatch', 'phone_number differs from the number of this method. Leave it out or pick the right method.');
    phone = m.phone ?? undefined;
    methodId = m.id;
  } else {
    phone = phoneIn ?? methodOfType(state, 'sms', undefined)?.phone ?? state.user.phone ?? undefined;
    methodId = phoneIn === undefined ? methodOfType(state, 'sms', undefined)?.id ?? null : null;
  }
  if (!phone) throw fail(400, 'missing_phone_number', 'No phone number given and none on file. Send phone_number in E.164 format.');
  const ch = smsChallenge(state, phone, methodId, { admin: state.user.admin });
  return { status: 200, body: { success: true, msg: `Code sent to ${maskPhone(phone)}.`, secret: ch.secret } };
}

function resendSms(state: SimState, b: Body, who: Principal | undefined): Reply {
  const id = int(b, 'tfa_method_id');
  const phoneIn = phoneArg(b);
  const secret = str(b, 'secret');
  const now = state.now();
  let ch: Challenge | undefined;
  if (secret !== undefined) {
    ch = challenge(state, secret, 'sms');
    if (phoneIn !== undefined && phoneIn !== ch.phone) throw fail(400, 'phone_number_mismatch', "phone_number differs from the challenge's number. Send the same number or request a new code.");
  } else {
    if (!who) throw fail(401, 'missing_auth_value', 'No authentication given: send a bearer token or the secret of the challenge.');
    const phone = id !== undefined ? methodById(state, id).phone : phoneIn ?? methodOfType(state, 'sms', undefined)?.phone ?? state.user.phone;
    const live = [...state.tfa.challenges.values()].filter((c) => c.channel === 'sms' && !c.used && c.expiresAt > now && c.phone === phone);
    const old = live[live.length - 1];
    if (!old) throw fail(400, 'no_challenge_found', 'No code is pending for this number. Request a new code first.');
    // A new secret for the same challenge recovers a lost one.
    state.tfa.challenges.delete(old.secret);
    old.secret = randomKey(16);
    state.tfa.challenges.set(old.secret, old);
    ch = old;
  }
  checkPhoneSendable(state, ch.phone!);
  ch.code = newCode();
  ch.expiresAt = now + CHALLENGE_SECONDS;
  state.tfa.lastSmsAt.set(ch.phone!, now);
  deliver(state, ch);
  return { status: 200, body: { success: true, msg: `Code re-sent to ${maskPhone(ch.phone)}.`, secret: ch.secret } };
}

function confirmNew(state: SimState, b: Body, deprecated: boolean): Reply {
  if (deprecated && state.user.legacy && state.tfa.enabled && state.tfa.methods.length === 0) {
    throw fail(400, 'untracked_2fa_found', 'This account has legacy 2FA. Regenerate backup codes first to migrate it, then add methods.');
  }
  const type = str(b, 'tfa_method');
  if (type === undefined) throw fail(400, 'bad_request', 'tfa_method is required: sms or totp.');
  if (type !== 'sms' && type !== 'totp') throw fail(400, 'invalid_tfa_method', `tfa_method '${type.slice(0, 20)}' cannot be added; use sms or totp.`);
  const code = str(b, 'code');
  const secret = str(b, 'secret');
  const lbl = label(b);
  if (code === undefined && secret === undefined) throw fail(400, 'missing_params', 'code and secret are required.');
  if (code === undefined) throw fail(400, 'missing_auth_value', 'code is required.');
  if (secret === undefined) throw fail(400, 'missing_params', 'secret is required.');
  const now = state.now();
  if (!(state.tfa.authorizedUntil !== null && state.tfa.authorizedUntil > now)) {
    throw fail(403, 'authorization_required', 'Adding a method needs a fresh authorization (valid 30 minutes). Verify with an existing method or e-mail first.');
  }
  let row: TfaMethodRow;
  const base = {
    id: state.tfa.nextMethodId, fail_count: 0, locked_until: null, created_at: Math.floor(now), last_used: null,
    is_primary: state.tfa.methods.length === 0,
  };
  if (type === 'sms') {
    const phone = phoneArg(b);
    if (phone === undefined) throw fail(400, 'missing_phone_number', 'phone_number is required to add an SMS method.');
    if (state.tfa.methods.some((m) => m.method === 'sms' && m.phone === phone)) {
      throw fail(400, 'duplicate_tfa_method', 'This phone number is already an SMS method on the account.');
    }
    const ch = challenge(state, secret, 'sms');
    if (ch.phone !== phone) throw fail(400, 'phone_number_mismatch', 'The code was sent to a different number. Request a code for this number.');
    if (ch.code !== code) throw failAttempt(state, null, '2fa_verification_failed');
    ch.used = true;
    row = { ...base, method: 'sms', label: lbl ?? `Phone ${phone.slice(-4)}`, phone, totpSecret: null };
  } else {
    if (state.tfa.methods.some((m) => m.method === 'totp')) throw fail(400, 'duplicate_tfa_method', 'An authenticator app is already set up. Remove it first to replace it.');
    let ok = false;
    try {
      ok = base32Decode(secret).length >= 10;
    } catch {
      ok = false;
    }
    if (!ok) throw fail(400, 'bad_request', 'secret must be the base32 secret from totp-setup.');
    if (!verifyTotp(secret, code, now)) throw failAttempt(state, null, '2fa_verification_failed');
    row = { ...base, method: 'totp', label: lbl ?? 'Authenticator app', phone: null, totpSecret: secret.toUpperCase().replace(/[\s=-]/g, '') };
  }
  state.tfa.nextMethodId++;
  state.tfa.methods.push(row);
  const body: Record<string, unknown> = {
    success: true,
    msg: type === 'sms' ? 'SMS verification added.' : 'Authenticator app added.',
  };
  const hasCodes = state.tfa.backupCodes.some((c) => !c.deleted);
  if (!state.tfa.enabled || !hasCodes) {
    const codes = newBackupCodes();
    state.tfa.backupCodes = codes.map((code) => ({ code, used: false, deleted: false }));
    body.backup_codes = codes;
  }
  state.tfa.enabled = true;
  state.user.legacy = false;
  return { status: 200, body };
}

function authorizeStart(state: SimState, b: Body): Reply {
  const backup = str(b, 'backup_code');
  const now = state.now();
  if (backup !== undefined) {
    useBackupCode(state, backup);
    state.tfa.authorizedUntil = now + WINDOW_SECONDS;
    return { status: 200, body: { success: true, msg: 'Authorized: you can add a method in the next 30 minutes.' } };
  }
  let type = methodEnum(b, ['sms', 'totp', 'email']);
  const id = int(b, 'tfa_method_id');
  const legacyPhone = state.user.legacy && state.tfa.enabled && state.tfa.methods.length === 0;
  if (state.tfa.methods.length === 0 && !legacyPhone) type = 'email'; // first method: forced to e-mail
  let row: TfaMethodRow | undefined;
  if (id !== undefined) {
    row = methodById(state, id);
    if (type !== undefined && type !== row.method) throw fail(400, 'bad_request', `tfa_method ${type} does not match method ${id}.`);
    type = row.method;
  }
  if (type === undefined) {
    if (state.tfa.methods.length === 1) type = state.tfa.methods[0]!.method;
    else throw fail(400, 'bad_request', 'tfa_method is required: sms, totp or email.');
  }
  let secret: string;
  if (type === 'email') {
    secret = emailChallenge(state).secret;
    state.tfa.pending = { secret, channel: 'email', methodId: null };
  } else if (type === 'sms') {
    row ??= methodOfType(state, 'sms', undefined);
    const phone = row?.phone ?? (legacyPhone ? state.user.phone : null);
    if (!phone) throw fail(400, 'missing_phone_number', 'No SMS method is set up. Choose another method.');
    if (row) checkLocked(state, row);
    secret = smsChallenge(state, phone, row?.id ?? null).secret;
    state.tfa.pending = { secret, channel: 'sms', methodId: row?.id ?? null };
  } else {
    row ??= methodOfType(state, 'totp', undefined);
    if (!row) throw fail(404, 'not_found', 'No authenticator app is set up. Choose another method.');
    checkLocked(state, row);
    secret = randomKey(16);
    state.tfa.pending = { secret, channel: 'totp', methodId: row.id };
  }
  return { status: 200, body: { success: true, secret } };
}

function authorizeFinish(state: SimState, b: Body): Reply {
  const code = str(b, 'code');
  const secret = str(b, 'secret');
  if (code === undefined && secret === undefined) throw fail(400, 'missing_params', 'code and secret are required.');
  if (code === undefined) throw fail(400, 'missing_auth_value', 'code is required.');
  if (secret === undefined) throw fail(400, 'missing_params', 'secret is required.');
  const p = state.tfa.pending;
  if (!p) throw fail(400, 'no_pending_authorization', 'No authorization is pending. Start again with the first step.');
  if (p.secret !== secret) throw fail(400, 'challenge_not_found', 'No pending authorization matches this secret. Start again with the first step.');
  const row = p.methodId !== null ? state.tfa.methods.find((m) => m.id === p.methodId) ?? null : null;
  if (row) checkLocked(state, row);
  if (p.channel === 'totp') {
    if (!row?.totpSecret) throw fail(400, 'tfa_method_not_configured', 'The authenticator method is damaged. Remove it and set it up again.');
    if (!verifyTotp(row.totpSecret, code, state.now())) throw failAttempt(state, row, '2fa_verification_failed');
  } else {
    const ch = challenge(state, secret, p.channel);
    if (ch.code !== code) throw failAttempt(state, row, '2fa_verification_failed');
    ch.used = true;
  }
  succeed(state, row);
  state.tfa.pending = null;
  state.tfa.authorizedUntil = state.now() + WINDOW_SECONDS;
  return { status: 200, body: { success: true, msg: 'Authorized: you can add a method in the next 30 minutes.' } };
}

function login(state: SimState, b: Body, who: Principal | undefined): Reply {
  bool(b, 'admin');
  if (!state.tfa.enabled) throw fail(400, '2fa_login_failed', '2FA is not enabled on this account; no 2FA login is needed.');
  const v = verify(state, b, '2fa_login_failed');
  const loginSecret = str(b, 'secret');
  if (loginSecret !== undefined) state.loginSecrets.delete(loginSecret);
  const body: Record<string, unknown> = { ...userRecord(state) };
  if (who) {
    const key = randomKey();
    state.sessions.set(key, { expired: false, createdAt: state.now() });
    body.session_key = key;
  }
  if (v.via === 'backup') {
    const left = state.tfa.backupCodes.filter((c) => !c.used && !c.deleted).length;
    if (left > 0) body.backup_codes_remaining = left;
  }
  if (tfaStatusOf(state) === 'legacy') body.legacy_tfa_user = true;
  return { status: 200, body };
}

function remove(state: SimState, b: Body): Reply {
  const target = int(b, 'target_id');
  if (str(b, 'backup_code') !== undefined && target === undefined) {
    throw fail(400, 'missing_params', 'target_id is required with a backup code: say which method to remove.');
  }
  if (target !== undefined) methodById(state, target);
  const legacy = tfaStatusOf(state) === 'legacy';
  if (!state.tfa.enabled) throw fail(400, 'bad_request', '2FA is not enabled; there is nothing to remove.');
  const v = verify(state, b, '2fa_verification_failed');
  const disabled = 'Two-factor authentication has been disabled.';
  if (legacy) {
    state.tfa.enabled = false;
    state.user.legacy = false;
    return { status: 200, body: { msg: disabled } };
  }
  const victim = target !== undefined ? methodById(state, target) : v.method;
  if (!victim) throw fail(400, 'bad_request', 'target_id is required when verifying by e-mail: say which method to remove.');
  state.tfa.methods = state.tfa.methods.filter((m) => m.id !== victim.id);
  if (state.tfa.methods.length === 0) {
    state.tfa.enabled = false;
    for (const c of state.tfa.backupCodes) c.deleted = true;
    return { status: 200, body: { msg: disabled } };
  }
  if (victim.is_primary) state.tfa.methods[0]!.is_primary = true;
  return { status: 200, body: { msg: `${victim.method === 'sms' ? 'SMS' : 'Authenticator'} method removed.`, remaining_methods: state.tfa.methods.length } };
}

function update(state: SimState, b: Body): Reply {
  const id = int(b, 'tfa_method_id');
  const type = methodEnum(b, ['sms', 'totp']);
  const lbl = label(b);
  const primary = bool(b, 'is_primary');
  let row: TfaMethodRow;
  if (id !== undefined) row = methodById(state, id);
  else {
    if (type === undefined) throw fail(400, 'bad_request', 'tfa_method_id or tfa_method is required.');
    const rows = state.tfa.methods.filter((m) => m.method === type);
    if (rows.length === 0) throw fail(404, 'not_found', `No ${type} method on this account.`);
    if (rows.length > 1) throw fail(400, 'bad_request', `Several ${type} methods exist; send tfa_method_id.`);
    row = rows[0]!;
  }
  if (lbl !== undefined) row.label = lbl;
  if (primary === true) for (const m of state.tfa.methods) m.is_primary = m.id === row.id;
  return { status: 200, body: { success: true, msg: 'Method updated.', method: publicMethod(state, row) } };
}

function regen(state: SimState, b: Body): Reply {
  if (!state.tfa.enabled) throw fail(400, 'bad_request', '2FA is not enabled; set up a method first.');
  if (state.tfa.methods.length === 0) {
    // legacy migration: an SMS method from the phone on file
    if (!state.user.phone) throw fail(400, 'missing_phone_number', 'No phone number is on file to migrate legacy 2FA. Contact support.');
    state.tfa.methods.push({
      id: state.tfa.nextMethodId++, method: 'sms', label: 'Phone (migrated)', phone: state.user.phone, totpSecret: null,
      is_primary: true, fail_count: 0, locked_until: null, created_at: Math.floor(state.now()), last_used: null,
    });
  }
  verify(state, b, '2fa_verification_failed');
  const codes = newBackupCodes();
  for (const c of state.tfa.backupCodes) c.deleted = true;
  state.tfa.backupCodes = codes.map((code) => ({ code, used: false, deleted: false }));
  state.user.legacy = false;
  return { status: 200, body: { msg: 'New backup codes generated; the old ones no longer work.', backup_codes: codes } };
}

const SECRET_ONLY = new Set(['POST /api/v0/tfa', 'POST /api/v0/tfa/email', 'POST /api/v0/tfa/sms', 'POST /api/v0/tfa/sms/resend', 'POST /api/v0/tfa/test', 'POST /api/v0/tfa/resend']);
const READS = new Set(['GET /api/v0/tfa/status']);

export function handleTfa(
  state: SimState,
  method: string,
  path: string,
  body: { json: Record<string, unknown> | undefined; bad: boolean },
  who: Principal | undefined,
  tokenPresent: boolean,
): Reply {
  const route = `${method} ${path}`;
  const b: Body = body.json ?? {};
  const hasSecret = typeof b.secret === 'string';
  if (tokenPresent && !who) throw fail(403, 'auth_error', 'Authentication failed: the API key or 2FA session is invalid or expired. Sign in again.');
  if (!who) {
    if (!hasSecret) throw fail(401, 'missing_auth_value', 'No authentication given: send an API key as a bearer token or a tfa_secret.');
    if (!SECRET_ONLY.has(route)) throw fail(403, 'auth_error', 'This 2FA endpoint needs a bearer token (API key or session key).');
  }
  if (who && (who.kind === 'instance' || (who.kind === 'read' && !READS.has(route)))) {
    throw fail(403, 'auth_error', 'This key may not manage two-factor authentication. Use your full API key.');
  }
  if (state.user.team) throw fail(403, 'team_user_forbidden', 'Two-factor settings cannot be changed from a team context. Switch to your personal account.');
  if (body.bad) throw fail(400, 'bad_request', 'The request body is not valid JSON.');
  unlockExpired(state);
  const now = state.now();

  switch (route) {
    case 'GET /api/v0/tfa/status':
      return {
        status: 200,
        body: {
          success: true,
          tfa_enabled: state.tfa.enabled,
          methods: state.tfa.methods.map((m) => publicMethod(state, m)),
          backup_codes_remaining: state.tfa.backupCodes.filter((c) => !c.used && !c.deleted).length,
          new_method_authorized: state.tfa.authorizedUntil !== null && state.tfa.authorizedUntil > now,
        },
      };
    case 'POST /api/v0/tfa':
      return login(state, b, who);
    case 'DELETE /api/v0/tfa':
      return remove(state, b);
    case 'POST /api/v0/tfa/email': {
      const secret = str(b, 'secret');
      if (secret !== undefined && state.loginSecrets.has(secret)) {
        return { status: 200, body: { success: true, msg: 'Code sent by e-mail.', secret: emailChallenge(state, secret).secret } };
      }
      if (secret !== undefined) {
        const ch = challenge(state, secret, 'email');
        requireVerifiedEmail(state);
        ch.code = newCode();
        deliver(state, ch);
        return { status: 200, body: { success: true, msg: 'Code sent by e-mail.', secret: ch.secret } };
      }
      return { status: 200, body: { success: true, msg: 'Code sent by e-mail.', secret: emailChallenge(state).secret } };
    }
    case 'POST /api/v0/tfa/sms':
    case 'POST /api/v0/tfa/test':
      return sendSms(state, b, who);
    case 'POST /api/v0/tfa/sms/resend':
    case 'POST /api/v0/tfa/resend':
      return resendSms(state, b, who);
    case 'POST /api/v0/tfa/totp-setup': {
      const secret = newTotpSecret();
      const account = encodeURIComponent(state.user.email || `user-${state.user.id}`);
      return {
        status: 200,
        body: { secret, provisioning_uri: `otpauth://totp/SimGPU:${account}?secret=${secret}&issuer=SimGPU&algorithm=SHA1&digits=6&period=30` },
      };
    }
    case 'POST /api/v0/tfa/authorize-new-method':
      return authorizeStart(state, b);
    case 'PUT /api/v0/tfa/authorize-new-method':
      return authorizeFinish(state, b);
    case 'POST /api/v0/tfa/confirm-new':
      return confirmNew(state, b, false);
    case 'POST /api/v0/tfa/test-submit':
      return confirmNew(state, b, true);
    case 'PUT /api/v0/tfa/update':
      return update(state, b);
    case 'PUT /api/v0/tfa/regen-backup-codes':
      return regen(state, b);
    default:
      throw fail(404, 'not_found', `No 2FA endpoint ${method} ${path}.`);
  }
}
