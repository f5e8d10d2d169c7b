// The two-factor authentication state machine of the spec: challenges (SMS/e-mail codes in
// an outbox), the add-method authorization window, TOTP, backup codes, per-method lockout,
// login sessions, removal, legacy accounts and the deprecated paths.
import { fail } from './simError';
import type { Principal } from './server';
import { randomKey, type Challenge, type SimState, type TfaMethodRow } from './state';
import { base32Decode, newTotpSecret, verifyTotp } from './totp';
import {
  CHALLENGE_SECONDS,
  WINDOW_SECONDS,
  type Body,
  type Reply,
  tfaStatusOf,
  userRecord,
  maskPhone,
  publicMethod,
  str,
  int,
  bool,
  methodEnum,
  label,
  phoneArg,
  newCode,
  newBackupCodes,
  deliver,
  requireVerifiedEmail,
  emailChallenge,
  checkPhoneSendable,
  smsChallenge,
  challenge,
  unlockExpired,
  methodById,
  methodOfType,
  checkLocked,
  failAttempt,
  succeed,
  useBackupCode,
  verify,
} from './tfaRules';

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
    if (phoneIn !== undefined && phoneIn !== m.phone)
      throw fail(400, 'phone_number_mismatch', 'phone_number differs from the number of this method. Leave it out or pick the right method.');
    phone = m.phone ?? undefined;
    methodId = m.id;
  } else {
    phone = phoneIn ?? methodOfType(state, 'sms', undefined)?.phone ?? state.user.phone ?? undefined;
    methodId = phoneIn === undefined ? (methodOfType(state, 'sms', undefined)?.id ?? null) : null;
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
    if (phoneIn !== undefined && phoneIn !== ch.phone)
      throw fail(400, 'phone_number_mismatch', "phone_number differs from the challenge's number. Send the same number or request a new code.");
  } else {
    if (!who) throw fail(401, 'missing_auth_value', 'No authentication given: send a bearer token or the secret of the challenge.');
    const phone = id !== undefined ? methodById(state, id).phone : (phoneIn ?? methodOfType(state, 'sms', undefined)?.phone ?? state.user.phone);
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
    throw fail(
      403,
      'authorization_required',
      'Adding a method needs a fresh authorization (valid 30 minutes). Verify with an existing method or e-mail first.',
    );
  }
  let row: TfaMethodRow;
  const base = {
    id: state.ids.tfaMethod,
    fail_count: 0,
    locked_until: null,
    created_at: Math.floor(now),
    last_used: null,
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
    if (state.tfa.methods.some((m) => m.method === 'totp'))
      throw fail(400, 'duplicate_tfa_method', 'An authenticator app is already set up. Remove it first to replace it.');
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
  state.ids.tfaMethod++;
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
  const row = p.methodId !== null ? (state.tfa.methods.find((m) => m.id === p.methodId) ?? null) : null;
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
      id: state.ids.tfaMethod++,
      method: 'sms',
      label: 'Phone (migrated)',
      phone: state.user.phone,
      totpSecret: null,
      is_primary: true,
      fail_count: 0,
      locked_until: null,
      created_at: Math.floor(state.now()),
      last_used: null,
    });
  }
  verify(state, b, '2fa_verification_failed');
  const codes = newBackupCodes();
  for (const c of state.tfa.backupCodes) c.deleted = true;
  state.tfa.backupCodes = codes.map((code) => ({ code, used: false, deleted: false }));
  state.user.legacy = false;
  return { status: 200, body: { msg: 'New backup codes generated; the old ones no longer work.', backup_codes: codes } };
}

const SECRET_ONLY = new Set([
  'POST /api/v0/tfa',
  'POST /api/v0/tfa/email',
  'POST /api/v0/tfa/sms',
  'POST /api/v0/tfa/sms/resend',
  'POST /api/v0/tfa/test',
  'POST /api/v0/tfa/resend',
]);
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
