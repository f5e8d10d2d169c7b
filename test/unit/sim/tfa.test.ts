import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, totp } from '../../../src/sim/totp';
import { brief, useSim, type Ctx } from './helpers';

describe('TOTP (RFC 6238 SHA-1 vectors)', () => {
  const secret = base32Encode(Buffer.from('12345678901234567890'));
  test('base32 round trip', () => {
    assert.equal(secret, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    assert.equal(Buffer.from(base32Decode(secret)).toString(), '12345678901234567890');
  });
  for (const [t, code] of [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ] as const) {
    test(`T=${t}`, () => {
      assert.equal(totp(secret, t, 8), code);
      assert.equal(totp(secret, t), code.slice(2));
    });
  }
});

let c!: Ctx;
// The seed's 2FA (the live service differs only in its SMS-provider codes, covered in today.test.ts).
useSim((x) => (c = x), { era: 'seed' });

/** Authorizes adding a method through the e-mail flow (forced for a user with no methods). */
async function authorizeByEmail(): Promise<void> {
  const a = await c.call('POST', '/api/v0/tfa/authorize-new-method/', { tfa_method: 'sms' });
  assert.equal(a.status, 200, brief(a.json));
  const mail = await c.ctl.lastCode('email');
  assert.equal(mail.secret, a.json.secret);
  const p = await c.call('PUT', '/api/v0/tfa/authorize-new-method/', { code: mail.code, secret: a.json.secret });
  assert.equal(p.status, 200, brief(p.json));
}

async function addTotp(): Promise<{ secret: string; codes: string[] }> {
  await authorizeByEmail();
  const s = await c.call('POST', '/api/v0/tfa/totp-setup/');
  assert.match(s.json.provisioning_uri, /^otpauth:\/\/totp\//);
  const code = totp(s.json.secret, await c.ctl.now());
  const r = await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'totp', code, secret: s.json.secret, label: 'phone app' });
  assert.equal(r.status, 200, brief(r.json));
  return { secret: s.json.secret, codes: r.json.backup_codes ?? [] };
}

async function addSms(phone = '+14155550199'): Promise<void> {
  const send = await c.call('POST', '/api/v0/tfa/sms/', { phone_number: phone });
  assert.equal(send.status, 200, brief(send.json));
  const sms = await c.ctl.lastCode('sms');
  const r = await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'sms', code: sms.code, secret: send.json.secret, phone_number: phone });
  assert.equal(r.status, 200, brief(r.json));
}

test('method ids go on across a reset: a method of the fresh account has an id above every one before it', async () => {
  const ids = async () => ((await c.call('GET', '/api/v0/tfa/status/')).json.methods as Array<{ id: number }>).map((m) => m.id);
  await addTotp();
  await addSms();
  const before = await ids();
  assert.equal(before.length, 2);
  await c.ctl.reset();
  assert.deepEqual(await ids(), [], 'a fresh account has no methods');
  await addTotp();
  const [after] = await ids();
  assert.ok(after! > Math.max(...before), `after the reset ${after}, before ${before.join(', ')}`);
});

test('first method: forced e-mail authorization, TOTP confirm enables 2FA with 10 backup codes once', async () => {
  let st = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(st.json.tfa_enabled, false);
  assert.equal(st.json.new_method_authorized, false);
  const { codes } = await addTotp();
  assert.equal(codes.length, 10);
  for (const code of codes) assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  st = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(st.json.tfa_enabled, true);
  assert.equal(st.json.new_method_authorized, true);
  assert.equal(st.json.backup_codes_remaining, 10);
  assert.equal(st.json.methods[0].method, 'totp');
  assert.equal(st.json.methods[0].is_primary, true);
  assert.equal(brief(st.json).includes('secret'), false, 'TOTP secret never returned');
  assert.equal((await c.call('GET', '/api/v0/users/current/')).json.tfa_status, 'enabled');
  // a second method gets no new backup codes
  await addSms();
  st = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(st.json.methods.length, 2);
  assert.match(st.json.methods[1].phone_number, /^\*+0199$/);
});

test('authorization window closes after 30 minutes', async () => {
  await authorizeByEmail();
  await c.ctl.advance(1801);
  assert.equal((await c.call('GET', '/api/v0/tfa/status/')).json.new_method_authorized, false);
  const s = await c.call('POST', '/api/v0/tfa/totp-setup/');
  const r = await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'totp', code: totp(s.json.secret, await c.ctl.now()), secret: s.json.secret });
  assert.equal(r.status, 403);
  assert.equal(r.json.error, 'authorization_required');
});

test('login with TOTP gives a session key usable as bearer; expired session -> 401', async () => {
  const { secret } = await addTotp();
  const r = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: totp(secret, await c.ctl.now()) });
  assert.equal(r.status, 200, brief(r.json));
  assert.equal(typeof r.json.session_key, 'string');
  assert.equal(r.json.legacy_tfa_user, undefined);
  assert.equal(r.json.backup_codes_remaining, undefined);
  assert.equal((await c.call('GET', '/api/v0/instances/', undefined, r.json.session_key)).status, 200);
  await c.ctl.fault({ kind: 'expire_session' });
  const e = await c.call('GET', '/api/v0/instances/', undefined, r.json.session_key);
  assert.equal(e.status, 401);
  assert.equal(e.json.error, 'auth_error');
  const t = await c.call('GET', '/api/v0/tfa/status/', undefined, r.json.session_key);
  assert.equal(t.status, 403);
  assert.equal(t.json.error, 'auth_error');
});

test('logged-out flow: secret only, no bearer; no session_key in the answer', async () => {
  await addTotp();
  await addSms('+14155550133');
  const secret = await c.ctl.login();
  const send = await c.call('POST', '/api/v0/tfa/sms/', { secret }, null);
  assert.equal(send.status, 200, brief(send.json));
  assert.equal(send.json.secret, secret);
  const sms = await c.ctl.lastCode('sms');
  assert.equal(sms.to, '+14155550133');
  const wrongEndpoint = await c.call('GET', '/api/v0/tfa/status/', undefined, null);
  assert.equal(wrongEndpoint.status, 401);
  const r = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'sms', code: sms.code, secret }, null);
  assert.equal(r.status, 200, brief(r.json));
  assert.equal(r.json.id, 424242);
  assert.equal(r.json.session_key, undefined);
  const mail = await c.call('POST', '/api/v0/tfa/email/', { secret: await c.ctl.login() }, null);
  assert.equal(mail.status, 200, brief(mail.json));
  assert.equal((await c.ctl.lastCode('email')).secret, mail.json.secret);
});

test('backup codes are single-use and counted down', async () => {
  const { codes } = await addTotp();
  const r = await c.call('POST', '/api/v0/tfa/', { backup_code: codes[0] });
  assert.equal(r.status, 200);
  assert.equal(r.json.backup_codes_remaining, 9);
  const again = await c.call('POST', '/api/v0/tfa/', { backup_code: codes[0] });
  assert.equal(again.status, 401);
  assert.equal(again.json.error, 'invalid_backup_code');
});

test('lockout after 5 failures for 15 minutes, per method', async () => {
  const { secret } = await addTotp();
  let last: any;
  for (let i = 1; i <= 5; i++) {
    last = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: '000000' === totp(secret, await c.ctl.now()) ? '111111' : '000000' });
    assert.equal(last.status, 400);
    assert.equal(last.json.fail_count, i);
  }
  assert.equal(last.json.error, '2fa_login_failed');
  assert.equal(typeof last.json.locked_until, 'number');
  const locked = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: totp(secret, await c.ctl.now()) });
  assert.equal(locked.status, 429);
  assert.equal(locked.json.error, 'tfa_locked');
  assert.equal(locked.json.fail_count, 5);
  assert.ok(locked.json.locked_until > (await c.ctl.now()));
  const st = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(st.json.methods[0].fail_count, 5);
  await c.ctl.advance(901);
  const ok = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: totp(secret, await c.ctl.now()) });
  assert.equal(ok.status, 200, brief(ok.json));
  assert.equal((await c.call('GET', '/api/v0/tfa/status/')).json.methods[0].fail_count, 0);
});

test('SMS challenge: exists on a second send, resend recovers a secret, expires after 10 minutes', async () => {
  await addTotp();
  await addSms('+14155550111');
  const first = await c.call('POST', '/api/v0/tfa/sms/', {});
  assert.equal(first.status, 200, brief(first.json));
  const dup = await c.call('POST', '/api/v0/tfa/sms/', {});
  assert.equal(dup.status, 400);
  assert.equal(dup.json.error, 'tfa_challenge_exists');
  const rs = await c.call('POST', '/api/v0/tfa/sms/resend/', {});
  assert.equal(rs.status, 200);
  assert.notEqual(rs.json.secret, first.json.secret);
  const sms = await c.ctl.lastCode('sms');
  assert.equal(sms.secret, rs.json.secret);
  await c.ctl.advance(601);
  const exp = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'sms', code: sms.code, secret: rs.json.secret });
  assert.equal(exp.status, 400);
  assert.equal(exp.json.error, '2fa_expired');
  const mm = await c.call('POST', '/api/v0/tfa/sms/resend/', { secret: 'nope' });
  assert.equal(mm.json.error, 'challenge_not_found');
});

test('removing the last method disables 2FA and soft-deletes backup codes', async () => {
  const { secret, codes } = await addTotp();
  await addSms('+14155550122');
  const st = await c.call('GET', '/api/v0/tfa/status/');
  const smsId = st.json.methods.find((m: any) => m.method === 'sms').id;
  const noTarget = await c.call('DELETE', '/api/v0/tfa/', { backup_code: codes[1] });
  assert.equal(noTarget.json.error, 'missing_params');
  const r1 = await c.call('DELETE', '/api/v0/tfa/', { backup_code: codes[1], target_id: smsId });
  assert.equal(r1.status, 200, brief(r1.json));
  assert.equal(r1.json.remaining_methods, 1);
  const r2 = await c.call('DELETE', '/api/v0/tfa/', { tfa_method: 'totp', code: totp(secret, await c.ctl.now()) });
  assert.equal(r2.status, 200, brief(r2.json));
  assert.equal(r2.json.remaining_methods, undefined);
  const after = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(after.json.tfa_enabled, false);
  assert.equal(after.json.backup_codes_remaining, 0);
  assert.equal((await c.call('GET', '/api/v0/users/current/')).json.tfa_status, 'disabled');
});

test('legacy account: login flag, test-submit refused, regen migrates the phone to an SMS method', async () => {
  await c.ctl.setAccount({ legacy: true, phone: '+14155550123' });
  assert.equal((await c.call('GET', '/api/v0/users/current/')).json.tfa_status, 'legacy');
  const send = await c.call('POST', '/api/v0/tfa/sms/', {});
  let sms = await c.ctl.lastCode('sms');
  const login = await c.call('POST', '/api/v0/tfa/', { tfa_method: 'sms', code: sms.code, secret: send.json.secret });
  assert.equal(login.status, 200, brief(login.json));
  assert.equal(login.json.legacy_tfa_user, true);
  const ts = await c.call('POST', '/api/v0/tfa/test-submit/', { tfa_method: 'sms', code: '123456', secret: 'x', phone_number: '+14155550123' });
  assert.equal(ts.json.error, 'untracked_2fa_found');
  await c.ctl.advance(61);
  const send2 = await c.call('POST', '/api/v0/tfa/test/', {});
  assert.equal(send2.status, 200, brief(send2.json));
  sms = await c.ctl.lastCode('sms');
  const rg = await c.call('PUT', '/api/v0/tfa/regen-backup-codes/', { tfa_method: 'sms', code: sms.code, secret: send2.json.secret });
  assert.equal(rg.status, 200, brief(rg.json));
  assert.equal(rg.json.backup_codes.length, 10);
  const st = await c.call('GET', '/api/v0/tfa/status/');
  assert.equal(st.json.methods.length, 1);
  assert.equal(st.json.methods[0].method, 'sms');
  assert.equal((await c.call('GET', '/api/v0/users/current/')).json.tfa_status, 'enabled');
});

test('update: label limit and a single primary', async () => {
  await addTotp();
  await addSms();
  const st = await c.call('GET', '/api/v0/tfa/status/');
  const sms = st.json.methods.find((m: any) => m.method === 'sms');
  const long = await c.call('PUT', '/api/v0/tfa/update/', { tfa_method_id: sms.id, label: 'x'.repeat(31) });
  assert.equal(long.json.error, 'bad_request');
  const u = await c.call('PUT', '/api/v0/tfa/update/', { tfa_method: 'sms', label: 'work phone', is_primary: true });
  assert.equal(u.status, 200);
  assert.equal(u.json.method.label, 'work phone');
  const st2 = await c.call('GET', '/api/v0/tfa/status/');
  assert.deepEqual(
    st2.json.methods.map((m: any) => m.is_primary),
    [false, true],
  );
  const nf = await c.call('PUT', '/api/v0/tfa/update/', { tfa_method_id: 999999, label: 'x' });
  assert.equal(nf.status, 404);
  assert.equal(nf.json.error, 'not_found');
});

test('every 2FA error code of the spec is reachable with its status', async () => {
  const seen = new Map<string, number>();
  const note = (r: { status: number; json: any }) => {
    if (r.json?.error) seen.set(r.json.error, r.status);
  };
  // natural paths
  note(await c.call('GET', '/api/v0/tfa/status/', undefined, null));
  note(await c.call('GET', '/api/v0/tfa/status/', undefined, 'wrong-key'));
  note(await c.call('POST', '/api/v0/tfa/sms/', '{"phone_number": '));
  await addTotp();
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'pigeon', code: '123456' }));
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp' }));
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'sms' }));
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'email', code: '123456', secret: 'nope' }));
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: 'abcdef' }));
  note(await c.call('POST', '/api/v0/tfa/', { backup_code: 'AAAA-BBBB-CCCC' }));
  note(await c.call('PUT', '/api/v0/tfa/authorize-new-method/', { code: '123456', secret: 'x' }));
  note(await c.call('PUT', '/api/v0/tfa/update/', { tfa_method_id: 1, label: 'x' }));
  note(await c.call('POST', '/api/v0/tfa/sms/', {}));
  note(await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+15550001234' }));
  note(await c.call('POST', '/api/v0/tfa/sms/resend/', { phone_number: '+14155550777' }));
  note(await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550188' }));
  note(await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550188' }));
  const ch = await c.ctl.lastCode('sms');
  note(await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'sms', code: ch.code, secret: ch.secret, phone_number: '+14155550189' }));
  const s = await c.call('POST', '/api/v0/tfa/totp-setup/');
  note(await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'totp', code: totp(s.json.secret, await c.ctl.now()), secret: s.json.secret }));
  await c.ctl.advance(601);
  note(await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'sms', code: ch.code, secret: ch.secret, phone_number: '+14155550188' }));
  await c.ctl.advance(1800);
  note(await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'sms', code: '123456', secret: 'x', phone_number: '+14155550188' }));
  await c.ctl.setAccount({ emailVerified: false });
  note(await c.call('POST', '/api/v0/tfa/email/', {}));
  await c.ctl.setAccount({ emailVerified: true, email: null });
  note(await c.call('POST', '/api/v0/tfa/email/', {}));
  await c.ctl.setAccount({ team: true, email: 'sim.user@example.com' });
  note(await c.call('GET', '/api/v0/tfa/status/'));
  await c.ctl.setAccount({ team: false });
  // a damaged TOTP row
  c.sim.state.tfa.methods[0]!.totpSecret = null;
  note(await c.call('POST', '/api/v0/tfa/', { tfa_method: 'totp', code: '123456' }));
  await c.ctl.reset();
  note(await c.call('POST', '/api/v0/tfa/confirm-new/', { tfa_method: 'sms', code: '123456', secret: 'x' }));
  await c.ctl.setAccount({ legacy: true });
  note(await c.call('POST', '/api/v0/tfa/test-submit/', { tfa_method: 'sms', code: '123456', secret: 'x' }));
  await c.ctl.setAccount({ phone: null });
  note(await c.call('POST', '/api/v0/tfa/sms/', {}));
  // SMS send cap
  await c.ctl.reset();
  for (let i = 0; i < 11; i++) {
    note(await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550166' }));
    await c.ctl.advance(61);
  }
  // provider-side codes only reachable by injection
  for (const code of [
    'sms_provider_error',
    'preauth_phone_cap',
    'sms_fraud_detected',
    'sms_provider_rate_limited',
    'service_unavailable',
    'challenge_creation_failed',
  ]) {
    await c.ctl.fault({ kind: 'tfa_error', error: code });
    note(await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550144' }));
  }
  // Written out from the specification's error table on purpose, not imported from src/sim/tfaRules.ts:
  // a wrong status there must fail this test, which it could not if both read the same table.
  const expected: Record<string, number> = {
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
  // tfa_locked and 2fa_verification_failed are shown in their own tests; reach them here too
  await c.ctl.reset();
  const { secret } = await addTotp();
  for (let i = 0; i < 6; i++) note(await c.call('DELETE', '/api/v0/tfa/', { tfa_method: 'totp', code: totp(secret, (await c.ctl.now()) + 3600) }));
  const missing = Object.keys(expected).filter((k) => !seen.has(k));
  assert.deepEqual(missing, []);
  for (const [k, status] of Object.entries(expected)) assert.equal(seen.get(k), status, k);
  // 401 missing_auth_value with neither bearer nor secret
  const none = await c.call('POST', '/api/v0/tfa/sms/', {}, null);
  assert.equal(none.status, 401);
  assert.equal(none.json.error, 'missing_auth_value');
});
