// Every 2FA flow against the simulator: real TOTP codes computed from the secret the flow
// showed, e-mail/SMS codes read from the simulator's outbox, time moved with its clock.
import { test, beforeEach } from 'node:test';
import * as assert from 'node:assert/strict';
import { totp } from '../../../src/sim/totp';
import { createApiClient } from '../../../src/api/client';
import { AUTHORIZATION_WINDOW_MS } from '../../../src/account/tfaFlows';
import type { TfaErrorInfo } from '../../../src/account/tfaErrors';
import { useTfaHarness } from './tfaHelpers';

const t = useTfaHarness();
beforeEach(async () => {
  await t.h.ctl.reset();
});

const emailCode = async (): Promise<string> => (await t.h.ctl.lastCode('email')).code;
const smsCode = async (): Promise<string> => (await t.h.ctl.lastCode('sms')).code;
const codeFor = (secret: string) => async (): Promise<string> => totp(secret, await t.h.ctl.now());
const retryable = (i: TfaErrorInfo) => i.actions[0];

/** Enables an authenticator app the way a user does; returns its secret, id and backup codes. */
async function enableTotp(label = 'Phone'): Promise<{ secret: string; id: number; codes: string[] }> {
  let secret = '';
  const r = t.h.run({
    label,
    code: [emailCode, async (s) => ((secret = s!), totp(s!, await t.h.ctl.now()))],
  });
  const res = await r.flows.addTotp();
  assert.ok(res.ok, `enable TOTP failed: ${JSON.stringify(r.errors.map((e) => e.code))}`);
  const st = await t.h.api.tfaStatus();
  return { secret, id: st.methods[0]!.id, codes: r.backupCodes[0] ?? [] };
}

test('first authenticator app: forced e-mail authorization, real TOTP code, 10 backup codes shown once', async () => {
  let secret = '';
  const r = t.h.run({ label: 'My phone', code: [emailCode, async (s) => ((secret = s!), totp(s!, await t.h.ctl.now()))] });
  const res = await r.flows.addTotp();
  assert.deepEqual(res, { ok: true, value: { backupCodes: true } });
  assert.match(secret, /^[A-Z2-7]+=*$/);
  const emails = (await t.h.ctl.outbox()).filter((m) => m.channel === 'email');
  assert.equal(emails.length, 1, 'the first method is authorized by e-mail');
  assert.equal(r.backupCodes.length, 1);
  assert.equal(r.backupCodes[0]!.length, 10);
  for (const c of r.backupCodes[0]!) assert.match(c, /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  const st = await t.h.api.tfaStatus();
  assert.equal(st.tfa_enabled, true);
  assert.equal(st.methods.length, 1);
  assert.equal(st.methods[0]!.method, 'totp');
  assert.equal(st.methods[0]!.label, 'My phone');
  assert.equal(st.backup_codes_remaining, 10);
  // The window is remembered from the local clock and shown.
  const until = r.flows.authorizedUntil();
  assert.ok(until && Math.abs(until - (t.h.clock.now() + AUTHORIZATION_WINDOW_MS)) < 5000);
  assert.ok(r.infos.some((m) => /until \d\d:\d\d/.test(m)));
  // Nothing secret reached the log.
  assert.ok(!t.h.log.text().includes(secret));
  for (const c of r.backupCodes[0]!) assert.ok(!t.h.log.text().includes(c));
});

test('the Account view is told as soon as a method is added, before the backup codes view opens', async () => {
  const order: string[] = [];
  const r = t.h.run(
    { label: 'Order', code: [emailCode, async (s) => totp(s!, await t.h.ctl.now())], onBackupCodes: () => void order.push('backup codes view') },
    { changed: () => order.push('account changed') },
  );
  assert.ok((await r.flows.addTotp()).ok);
  assert.deepEqual(order, ['account changed', 'backup codes view']);
});

test('inside the 30-minute window no new authorization is asked; after it the user authorizes again', async () => {
  await enableTotp();
  // Within the window: no verifier scripted, so asking for one would cancel the flow.
  const r1 = t.h.run({ phone: '+1 415 555 0123', code: smsCode, label: 'Work' });
  const res1 = await r1.flows.addSms();
  assert.ok(res1.ok, JSON.stringify(r1.errors));
  assert.equal((await t.h.api.tfaStatus()).methods.length, 2);
  await t.h.ctl.reset();
  const again = await enableTotp();
  await t.h.advance(31 * 60);
  const r2 = t.h.run({ verify: again.id, phone: '+14155550124', code: [codeFor(again.secret), smsCode] });
  assert.equal(r2.flows.authorizedUntil(), undefined, 'lapsed locally');
  const res2 = await r2.flows.addSms();
  assert.ok(res2.ok, JSON.stringify(r2.errors));
  assert.ok(r2.infos.some((m) => m.startsWith('Authorized')));
  assert.equal(r2.errors.length, 0, 'no authorization_required surfaced');
});

test('window lapsing between setup and confirm: the flow re-authorizes instead of surfacing authorization_required', async () => {
  const r = t.h.run({
    code: [emailCode, async (s) => (await t.h.advance(31 * 60), totp(s!, await t.h.ctl.now())), emailCode],
  });
  const res = await r.flows.addTotp();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.ok(r.infos.some((m) => /lapsed/.test(m)));
  assert.equal((await t.h.ctl.outbox()).filter((m) => m.channel === 'email').length, 2);
  assert.equal((await t.h.api.tfaStatus()).methods.length, 1);
});

test('wrong TOTP codes lock the method; the message names it and the end time', async () => {
  const { id } = await enableTotp('Pixel');
  const r = t.h.run({ verify: id, code: ['000001', '000002', '000003', '000004', '000005', '000006'], onError: retryable });
  const res = await r.flows.regenerateBackupCodes();
  assert.equal(res.ok, false);
  const last = r.errors[r.errors.length - 1]!;
  assert.ok(last.code === 'tfa_locked' || last.code === '2fa_verification_failed', last.code);
  assert.match(last.message, /"Pixel"/);
  assert.match(last.message, /locked until \d\d:\d\d/);
  assert.deepEqual(last.actions, []);
  const m = (await t.h.api.tfaStatus()).methods[0]!;
  assert.ok(m.locked_until && m.locked_until > (await t.h.ctl.now()));
  // Locked: further codes are refused until the lock ends, with the same guidance.
  const r2 = t.h.run({ verify: id, code: '123456' });
  assert.equal((await r2.flows.regenerateBackupCodes()).ok, false);
  assert.equal(r2.errors[0]?.code, 'tfa_locked');
});

test('a wrong code is worded for where it came from: e-mail code, authenticator app', async () => {
  // A wrong e-mail code during the first authorization, then the right one.
  let secret = '';
  const r = t.h.run({ label: 'Pixel', code: ['000000', emailCode, async (s) => ((secret = s!), totp(s!, await t.h.ctl.now()))], onError: retryable });
  assert.ok((await r.flows.addTotp()).ok);
  const email = r.errors[0]!;
  assert.equal(email.code, '2fa_verification_failed');
  assert.match(email.message, /^The e-mail code was not accepted/);
  assert.match(email.message, /newest e-mail/);
  assert.doesNotMatch(email.message, /authenticator|30 seconds|for e-mail code/);
  // A wrong authenticator code names the app and its 30-second rhythm.
  const id = (await t.h.api.tfaStatus()).methods[0]!.id;
  const r2 = t.h.run({ verify: id, code: ['000000'] });
  assert.equal((await r2.flows.regenerateBackupCodes()).ok, false);
  assert.match(
    r2.errors[0]!.message,
    /^The code from "Pixel" \(authenticator app\) was not accepted \(1 failed attempt\)\. Check the code \(authenticator codes change every 30 seconds\)/,
  );
  assert.ok(secret);
});

test('an expired e-mail challenge (clock +11 min) offers a new code and then succeeds', async () => {
  await enableTotp();
  let calls = 0;
  const r = t.h.run({
    verify: 'email',
    code: async () => {
      calls++;
      if (calls === 1) await t.h.advance(11 * 60);
      return emailCode();
    },
    onError: retryable,
  });
  const res = await r.flows.regenerateBackupCodes();
  assert.deepEqual(res, { ok: true, value: 10 });
  assert.equal(r.errors[0]?.code, '2fa_expired');
  assert.deepEqual(r.errors[0]?.actions, ['newCode']);
  assert.equal((await t.h.ctl.outbox()).filter((m) => m.channel === 'email').length, 3, 'authorization, first and new code');
  assert.equal(r.backupCodes[0]?.length, 10);
});

test('backup codes are single use; sign-in by backup code reports the remaining count', async () => {
  const { codes } = await enableTotp();
  const r = t.h.run({ verify: 'backup', backupCode: codes[0]!.toLowerCase() });
  const res = await r.flows.signIn();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.equal(res.ok && res.value.backupCodesRemaining, 9);
  assert.ok(r.infos.some((m) => /9 backup codes remain/.test(m)));
  assert.equal(typeof r.sessionKeys[0], 'string');
  const r2 = t.h.run({ verify: 'backup', backupCode: codes[0]!, onError: 'stop' });
  const res2 = await r2.flows.signIn();
  assert.equal(res2.ok, false);
  assert.equal(r2.errors[0]?.code, 'invalid_backup_code');
  assert.match(r2.errors[0]!.message, /already used|another/i);
  assert.equal(r2.sessionKeys.length, 0);
});

test('a malformed backup code is refused before sending (no failed attempt spent)', async () => {
  await enableTotp();
  const before = (await t.h.ctl.requests()).length;
  const r = t.h.run({ verify: 'backup', backupCode: 'ABCD-1234' });
  assert.deepEqual(await r.flows.signIn(), { ok: false, reason: 'cancelled' });
  assert.ok(r.infos.some((m) => /XXXX-XXXX-XXXX/.test(m)));
  const sent = (await t.h.ctl.requests()).slice(before).filter((q) => q.method === 'POST' && q.path.startsWith('/api/v0/tfa'));
  assert.equal(sent.length, 0, 'nothing sent');
});

test('Sign In with 2FA by TOTP: the session key works as the bearer; Sign Out drops it', async () => {
  const { id, secret } = await enableTotp();
  const r = t.h.run({ verify: id, code: codeFor(secret) });
  const res = await r.flows.signIn();
  assert.ok(res.ok, JSON.stringify(r.errors));
  const key = r.sessionKeys[0]!;
  assert.ok(key && key !== 'sim-api-key');
  const session = createApiClient({
    baseUrl: t.h.sim.url,
    credentials: { token: () => key },
    log: t.h.log,
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const me = await session.currentUser();
  assert.ok(me.email);
  assert.ok(!t.h.log.text().includes(key), 'session key never logged');
  await r.flows.signOut();
  assert.equal(r.sessionKeys[1], undefined);
  assert.equal(r.sessionKeys.length, 2);
});

test('removing the last method warns first; confirmed, it turns 2FA off and deletes backup codes', async () => {
  const { id, secret } = await enableTotp();
  let warning = '';
  const declined = t.h.run({ method: id, verify: id, code: codeFor(secret), confirm: false, onConfirm: (m) => (warning = m) });
  assert.deepEqual(await declined.flows.removeMethod(), { ok: false, reason: 'cancelled' });
  assert.match(warning, /last 2FA method/);
  assert.match(warning, /turns two-factor authentication off/);
  assert.match(warning, /backup codes/);
  assert.equal((await t.h.api.tfaStatus()).methods.length, 1, 'nothing removed without consent');
  const r = t.h.run({ method: id, verify: id, code: codeFor(secret), confirm: true });
  const res = await r.flows.removeMethod();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.equal(res.ok && res.value.disabled, true);
  const st = await t.h.api.tfaStatus();
  assert.equal(st.tfa_enabled, false);
  assert.equal(st.methods.length, 0);
  assert.equal(st.backup_codes_remaining, 0);
  assert.equal((await t.h.api.currentUser()).tfa_status, 'disabled');
});

test('remove one of two methods with a backup code and target_id', async () => {
  const { codes } = await enableTotp();
  const add = t.h.run({ phone: '+442071838750', code: smsCode });
  assert.ok((await add.flows.addSms()).ok);
  const sms = (await t.h.api.tfaStatus()).methods.find((m) => m.method === 'sms')!;
  assert.equal(sms.phone_number?.endsWith('8750'), true);
  assert.ok(!sms.phone_number?.includes('2071838'), 'masked');
  const r = t.h.run({ method: sms.id, verify: 'backup', backupCode: codes[3]!, confirm: true });
  const res = await r.flows.removeMethod();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.equal(res.ok && res.value.disabled, false);
  const st = await t.h.api.tfaStatus();
  assert.deepEqual(
    st.methods.map((m) => m.method),
    ['totp'],
  );
  assert.equal(st.backup_codes_remaining, 9);
});

test('Add SMS: a code sent moments ago (tfa_challenge_exists) is resent, then confirmed', async () => {
  await enableTotp();
  await t.h.api.tfaSendSms({ phone_number: '+14155550199' });
  const r = t.h.run({ phone: '+14155550199', code: smsCode, onError: retryable });
  const res = await r.flows.addSms();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.equal(r.errors[0]?.code, 'tfa_challenge_exists');
  assert.deepEqual(r.errors[0]?.actions, ['resend']);
  assert.equal(res.ok && res.value.backupCodes, false, 'not the first method: no new backup codes');
});

test('Add SMS refuses a number that is not E.164 before sending', async () => {
  await enableTotp();
  const r = t.h.run({ phone: '0415 555 0123' });
  assert.deepEqual(await r.flows.addSms(), { ok: false, reason: 'cancelled' });
  assert.ok(r.infos.some((m) => /E\.164/.test(m)));
  assert.equal((await t.h.ctl.outbox()).filter((m) => m.channel === 'sms').length, 0);
});

test('rename validates 30 characters before sending; make primary', async () => {
  await enableTotp();
  const add = t.h.run({ phone: '+14155550100', code: smsCode });
  assert.ok((await add.flows.addSms()).ok);
  const st = await t.h.api.tfaStatus();
  const sms = st.methods.find((m) => m.method === 'sms')!;
  const before = (await t.h.ctl.requests()).length;
  const long = t.h.run({ method: sms.id, label: 'x'.repeat(31) });
  const res = await long.flows.rename();
  assert.equal(res.ok, false);
  assert.match(long.errors[0]!.message, /at most 30/);
  assert.equal((await t.h.ctl.requests()).slice(before).filter((q) => q.path.includes('/tfa/update')).length, 0);
  const ok = t.h.run({ method: sms.id, label: 'Backup phone' });
  assert.deepEqual(await ok.flows.rename(), { ok: true, value: 'Backup phone' });
  assert.ok((await ok.flows.makePrimary()).ok);
  const after = (await t.h.api.tfaStatus()).methods.find((m) => m.id === sms.id)!;
  assert.equal(after.label, 'Backup phone');
  assert.equal(after.is_primary, true);
});

test('legacy account: sign in by SMS to the phone on file shows the legacy notice', async () => {
  await t.h.ctl.setAccount({ legacy: true, phone: '+14155550111' });
  assert.equal((await t.h.api.currentUser()).tfa_status, 'legacy');
  const r = t.h.run({ verify: 'phoneOnFile', code: smsCode });
  const res = await r.flows.signIn();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.equal(res.ok && res.value.legacy, true);
  assert.ok(r.infos.some((m) => /legacy 2FA/.test(m)));
  assert.equal(typeof r.sessionKeys[0], 'string');
});

test('team context: the flow stops and says to switch to the personal context', async () => {
  await t.h.ctl.setAccount({ team: true });
  const r = t.h.run({ code: emailCode });
  const res = await r.flows.addTotp();
  assert.equal(res.ok, false);
  assert.equal(r.errors[0]?.code, 'team_user_forbidden');
  assert.match(r.errors[0]!.message, /personal/);
});

test('unverified e-mail: the first method explains the prerequisite', async () => {
  await t.h.ctl.setAccount({ emailVerified: false });
  const r = t.h.run({ code: emailCode });
  const res = await r.flows.addTotp();
  assert.equal(res.ok, false);
  assert.equal(r.errors[0]?.code, 'email_not_verified');
  assert.match(r.errors[0]!.message, /verif/);
});

test('e-mail code verifies a removal (the challenge secret is carried to DELETE) and an SMS method verifies regeneration', async () => {
  const { codes } = await enableTotp();
  const add = t.h.run({ phone: '+14155550177', code: smsCode });
  assert.ok((await add.flows.addSms()).ok);
  const sms = (await t.h.api.tfaStatus()).methods.find((m) => m.method === 'sms')!;
  await t.h.advance(61); // past the SMS resend gap
  const regen = t.h.run({ verify: sms.id, code: smsCode });
  const r1 = await regen.flows.regenerateBackupCodes();
  assert.deepEqual(r1, { ok: true, value: 10 }, JSON.stringify(regen.errors));
  assert.notDeepEqual(regen.backupCodes[0], codes);
  const totpId = (await t.h.api.tfaStatus()).methods.find((m) => m.method === 'totp')!.id;
  const rm = t.h.run({ method: totpId, verify: 'email', code: emailCode, confirm: true });
  const r2 = await rm.flows.removeMethod();
  assert.ok(r2.ok, JSON.stringify(rm.errors));
  assert.deepEqual(
    (await t.h.api.tfaStatus()).methods.map((m) => m.method),
    ['sms'],
  );
});
