// Every error the simulator can answer with reaches the user as an actionable sentence: each HTTP
// status (a bad key, a taken offer) and each 2FA error code of the spec, with the lock time and the
// failed attempts where the service gives them. (The failure kinds on their own: errors.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, rejection, type Harness } from './helpers';
import { KNOWN_ERROR_CODES, formatLocalTime, errorFromResponse } from '../../../src/api/errors';

let h: Harness;
useHarness({}, (x) => (h = x));

test('HTTP statuses map to kinds and messages: 401, 403, 404, 410 no_such_ask, 429, 5xx', async () => {
  const api = h.client({ retry: { retries: 0 } });
  await h.ctl.fault({ kind: 'http_error', status: 403, error: 'permission_denied', msg: 'read-only key' });
  let e = await rejection(api.listInstances());
  assert.equal(e.kind, 'http');
  assert.match(e.userMessage(), /permission/);

  await h.ctl.fault({ kind: 'http_error', status: 404, error: 'not_here' });
  e = await rejection(api.listInstances());
  assert.match(e.userMessage(), /not found.*Refresh/);

  await h.ctl.fault({ kind: 'http_error', status: 429 });
  e = await rejection(api.listInstances());
  assert.equal(e.kind, 'rate_limited');
  assert.equal(e.msg, 'API requests too frequent');
  assert.match(e.userMessage(), /Wait a minute/);

  await h.ctl.fault({ kind: 'http_error', status: 500, error: 'boom' });
  e = await rejection(api.listInstances());
  assert.match(e.userMessage(), /internal problem \(HTTP 500\).*try again/);

  // The live service answers a bad key on instance paths with 404 auth_error: signed out all the same.
  const bad = await rejection(h.client({ credentials: { token: () => 'wrong-key' } }).listInstances());
  assert.equal(bad.kind, 'auth');
  assert.equal(bad.status, 404);
  assert.match(bad.userMessage(), /Sign in again/);
  const badUser = await rejection(h.client({ credentials: { token: () => 'wrong-key' } }).currentUser());
  assert.equal(badUser.kind, 'auth');
  assert.equal(badUser.status, 401);

  const offers = await api.searchOffers({ limit: 1 });
  await h.ctl.fault({ kind: 'offer_taken', offerId: offers[0]!.id });
  e = await rejection(api.createInstance(offers[0]!.id, { image: 'ubuntu:22.04', cancel_unavail: true }));
  assert.equal(e.status, 410);
  assert.equal(e.code, 'no_such_ask');
  assert.match(e.userMessage(), /just rented by someone else/);
});

/** Code -> a phrase its user message must contain (what happened / what to do). */
const EXPECT: Record<string, RegExp> = {
  bad_request: /invalid.*try again/i,
  auth_error: /credentials.*Sign in again/i,
  invalid_tfa_method: /not supported.*Choose/i,
  missing_auth_value: /code.*required/i,
  missing_params: /Send a new code/i,
  email_not_verified: /e-mail address is not verified.*verification link/i,
  '2fa_expired': /expired.*Send a new code/i,
  challenge_not_found: /Send a new code/i,
  tfa_challenge_exists: /Resend code/,
  authorization_required: /authorization.*30 minutes/i,
  no_pending_authorization: /no pending authorization/i,
  invalid_backup_code: /backup code is invalid or was already used/i,
  untracked_2fa_found: /legacy 2FA.*Regenerate your backup codes/i,
  duplicate_tfa_method: /already configured/i,
  sms_provider_error: /SMS could not be delivered/i,
  preauth_phone_cap: /too many authorization attempts/i,
  sms_rate_limited: /Too many SMS codes.*Wait/i,
  tfa_locked: /locked.*too many wrong codes.*Use another method or a backup code, or wait/i,
  service_unavailable: /temporarily unavailable.*retry/i,
  no_challenge_found: /Send a new code/i,
  phone_number_mismatch: /phone number differs/i,
  '2fa_login_failed': /verification failed.*try again/i,
  '2fa_verification_failed': /code is wrong.*try again/i,
  team_user_forbidden: /team context.*personal account context/i,
  missing_email: /no e-mail address/i,
  missing_phone_number: /phone number is needed.*\+/i,
  not_found: /no longer exists.*Refresh/i,
  tfa_method_not_configured: /Reconfigure 2FA/i,
  challenge_creation_failed: /could not start the verification.*retry/i,
  sms_blocked_number: /blocked.*another number/i,
  sms_fraud_detected: /fraud.*authenticator app/i,
  sms_provider_rate_limited: /SMS provider is rate-limiting.*Wait/i,
};

test('every 2FA error code of the spec has its own user message', () => {
  for (const code of Object.keys(EXPECT)) assert.ok(KNOWN_ERROR_CODES.includes(code), `no message for ${code}`);
});

for (const [code, phrase] of Object.entries(EXPECT)) {
  test(`2FA error ${code} from the simulator -> ApiError with an actionable message`, async () => {
    await h.ctl.fault({ kind: 'tfa_error', error: code });
    // POST: never retried, so exactly the injected error comes back even for 5xx/429.
    const e = await rejection(h.client().tfaSendEmail({}));
    assert.equal(e.code, code);
    assert.ok(e.status && e.status >= 400);
    if (code === 'auth_error') assert.equal(e.kind, 'auth');
    else if (e.status === 429) assert.equal(e.kind, 'rate_limited');
    else assert.equal(e.kind, 'http');
    assert.match(e.userMessage(), phrase);
  });
}

test('tfa_locked with locked_until names the local unlock time', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const until = now.getTime() / 1000 + 15 * 60;
  const e = errorFromResponse(
    'POST',
    '/api/v0/tfa/',
    429,
    JSON.stringify({ success: false, error: 'tfa_locked', msg: 'locked', fail_count: 5, locked_until: until }),
  );
  assert.equal(e.failCount, 5);
  assert.equal(e.lockedUntil, until);
  assert.equal(
    e.userMessage(now),
    `This method is locked after too many wrong codes until ${formatLocalTime(until)} (local time). Use another method or a backup code, or wait.`,
  );
  // After the lock ran out the message no longer claims a future time.
  assert.doesNotMatch(e.userMessage(new Date((until + 60) * 1000)), /until/);
});

test('2fa_verification_failed reports the failed attempts', () => {
  const e = errorFromResponse(
    'POST',
    '/api/v0/tfa/',
    400,
    JSON.stringify({ success: false, error: '2fa_verification_failed', msg: 'bad', fail_count: 2, locked_until: null }),
  );
  assert.match(e.userMessage(), /2 failed attempts/);
});
