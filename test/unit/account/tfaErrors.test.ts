// Every error code of the spec's 2FA table, produced by the simulator, must give a
// specific sentence with a next step, and the follow-up the flow can offer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeTfaError } from '../../../src/account/tfaErrors';
import { ApiError } from '../../../src/api/errors';
import { useTfaHarness } from './tfaHelpers';

const SPEC_CODES = [
  'bad_request',
  'auth_error',
  'invalid_tfa_method',
  'missing_auth_value',
  'missing_params',
  'email_not_verified',
  '2fa_expired',
  'challenge_not_found',
  'tfa_challenge_exists',
  'authorization_required',
  'no_pending_authorization',
  'invalid_backup_code',
  'untracked_2fa_found',
  'duplicate_tfa_method',
  'sms_provider_error',
  'preauth_phone_cap',
  'sms_rate_limited',
  'tfa_locked',
  'service_unavailable',
  'no_challenge_found',
  'phone_number_mismatch',
  '2fa_login_failed',
  '2fa_verification_failed',
  'team_user_forbidden',
  'missing_email',
  'missing_phone_number',
  'not_found',
  'tfa_method_not_configured',
  'challenge_creation_failed',
  'sms_blocked_number',
  'sms_fraud_detected',
  'sms_provider_rate_limited',
];

const t = useTfaHarness();

async function errorFor(code: string): Promise<unknown> {
  await t.h.ctl.fault({ kind: 'tfa_error', error: code, count: 1 });
  try {
    await t.h.api.tfaSendEmail({});
  } catch (e) {
    return e;
  }
  throw new Error(`the simulator did not fail with ${code}`);
}

test('every 2FA error code of the spec has its own actionable sentence', async () => {
  const seen = new Map<string, string>();
  for (const code of SPEC_CODES) {
    const e = await errorFor(code);
    const info = describeTfaError(e, { method: { id: 1, method: 'totp', label: 'Phone' } });
    assert.equal(info.code, code, `code carried through for ${code}`);
    assert.ok(info.message.length > 30, `${code}: message too short`);
    assert.ok(!info.message.startsWith('Injected'), `${code}: raw server text must not be the whole message`);
    // What to do next: every sentence names an action.
    assert.match(
      info.message,
      /try again|retry|send a new code|resend|enter|use |wait|switch|verify|add |remove|regenerate|refresh|authorize|start|contact|check|choose|update|sign in/i,
      `${code}: no next step in "${info.message}"`,
    );
    for (const [other, msg] of seen) assert.notEqual(info.message, msg, `${code} and ${other} share a message`);
    seen.set(code, info.message);
  }
  assert.equal(seen.size, SPEC_CODES.length);
});

test('flow-specific follow-ups: new code, resend, retry, none where waiting is the answer', async () => {
  const actions = async (code: string) => describeTfaError(await errorFor(code)).actions;
  assert.deepEqual(await actions('2fa_expired'), ['newCode']);
  assert.deepEqual(await actions('challenge_not_found'), ['newCode']);
  assert.deepEqual(await actions('tfa_challenge_exists'), ['resend']);
  assert.deepEqual(await actions('service_unavailable'), ['retry']);
  assert.deepEqual(await actions('challenge_creation_failed'), ['retry']);
  assert.deepEqual(await actions('invalid_backup_code'), ['tryAgain']);
  assert.deepEqual(await actions('tfa_locked'), []);
  assert.deepEqual(await actions('team_user_forbidden'), []);
});

test('specific wording: lockout names the method and local end, team context, e-mail prerequisite, rate limits', async () => {
  const fmt = (ms: number) => `T${ms}`;
  const locked = new ApiError({ kind: 'rate_limited', status: 429, code: 'tfa_locked', message: 'x', failCount: 5, lockedUntil: 1_800_000_000 });
  const m = describeTfaError(locked, { method: { id: 3, method: 'sms', label: 'Work phone', phone_number: '***1234' }, formatTime: fmt });
  assert.match(m.message, /"Work phone"/);
  assert.match(m.message, /until T1800000000000/);
  assert.match(describeTfaError(await errorFor('team_user_forbidden')).message, /personal/i);
  assert.match(describeTfaError(await errorFor('email_not_verified')).message, /verif/i);
  const rl = describeTfaError(new ApiError({ kind: 'rate_limited', status: 429, code: 'sms_rate_limited', message: 'x', retryAfterSec: 120 }), {
    now: 0,
    formatTime: fmt,
  });
  assert.match(rl.message, /after T120000/);
  assert.match(describeTfaError(await errorFor('sms_provider_rate_limited')).message, /try again in about 10 minutes/i);
  const vf = describeTfaError(new ApiError({ kind: 'http', status: 400, code: '2fa_verification_failed', message: 'x', failCount: 2, lockedUntil: null }), {
    method: { id: 1, method: 'totp' },
  });
  assert.match(vf.message, /2 failed attempts/);
  assert.deepEqual(vf.actions, ['tryAgain']);
});

test('a failed first step is retried from where it stopped (service_unavailable, then success)', async () => {
  await t.h.ctl.fault({ kind: 'tfa_error', error: 'service_unavailable', count: 1 });
  const r = t.h.run({ onError: 'retry', method: 424242 });
  const res = await r.flows.makePrimary();
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0]?.code, 'service_unavailable');
  // Retried the status call successfully, then found no such method: cancelled, not failed.
  assert.deepEqual(res, { ok: false, reason: 'cancelled' });
});

test('without Retry the flow stops with the message and nothing half done', async () => {
  await t.h.ctl.fault({ kind: 'tfa_error', error: 'challenge_creation_failed', count: 1 });
  const r = t.h.run({ onError: 'stop', method: 1 });
  const res = await r.flows.rename();
  assert.equal(res.ok, false);
  assert.equal(!res.ok && res.reason, 'failed');
  assert.match(!res.ok ? (res.message ?? '') : '', /retry/i);
});

test('the wrong-code sentence per method: SMS and backup codes get their own hint', () => {
  const wrong = new ApiError({ kind: 'http', status: 400, code: '2fa_verification_failed', message: 'x', failCount: 1, lockedUntil: null });
  const sms = describeTfaError(wrong, { method: { id: 2, method: 'sms', phone_number: '***1234' } }).message;
  assert.match(sms, /^The SMS code sent to \*\*\*1234 was not accepted \(1 failed attempt\)\. Check the code in the newest SMS/);
  const backup = describeTfaError(wrong, { via: 'backup' }).message;
  assert.match(backup, /^The backup code was not accepted.*each backup code works once/);
  for (const m of [sms, backup]) assert.doesNotMatch(m, /30 seconds|authenticator/);
});
