// Every 2FA endpoint (current and deprecated paths) through the client against the simulator,
// as one account's story. All log output of the run is captured; at the end none of the
// secrets used (API key, session key, jupyter_token, instance_api_key, TOTP secret, backup
// codes, challenge secrets, codes) may appear in it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, rejection, API_KEY, type Harness } from './helpers';
import { closeApiTransport } from '../../../src/api/client';
import { isApiError, formatLocalTime } from '../../../src/api/errors';
import { createRedactingLogger } from '../../../src/api/redact';
import { totp } from '../../../src/sim/totp';
import type { Credentials, ServiceApi } from '../../../src/api/types';

let h: Harness;
let api: ServiceApi;
/** Every secret value the run touches; checked against all captured output at the end. */
const secrets = new Map<string, string>();
const keep = (name: string, v: string | undefined) => {
  assert.ok(v && v.length >= 4, `the run produced no ${name}`);
  secrets.set(`${name}#${secrets.size}`, v);
  return v;
};
/** A careless caller that logs whole responses: only the redacting logger stands between them and the log. */
let careless: ReturnType<typeof createRedactingLogger>;
const dump = (what: string, v: unknown) => careless.debug(`${what}: ${JSON.stringify(v)}`);

let totpSecret = '';
let simNow = 0;
const nextTotp = async () => {
  simNow = await h.ctl.advance(30); // one TOTP step later, so no code is ever reused
  return totp(totpSecret, Math.floor(simNow));
};

before(async () => {
  h = await startHarness({ rateLimitPerSecond: 1000, era: 'seed' });
  api = h.client();
  careless = createRedactingLogger(h.log, () => [API_KEY]);
  secrets.set('api key', API_KEY);
});
after(async () => {
  await h.close();
  await closeApiTransport();
});

/** Runs a call expected to fail and logs what a caller would log: message and user message. */
async function failing(p: Promise<unknown>) {
  const e = await rejection(p);
  h.log.warn(`${e.message} | ${e.userMessage()}`);
  return e;
}

test('first method: authorize by e-mail, TOTP setup, confirm-new returns backup codes', async () => {
  const s0 = await api.tfaStatus();
  assert.equal(s0.tfa_enabled, false);
  assert.equal(s0.new_method_authorized, false);

  const start = await api.tfaAuthorizeNewMethod({});
  dump('authorize', start);
  const challenge = keep('challenge secret', start.secret);
  const mail = await h.ctl.lastCode('email');
  keep('email code', mail.code);
  const wrong = await failing(api.tfaAuthorizeNewMethodConfirm({ code: mail.code === '000000' ? '111111' : '000000', secret: challenge }));
  assert.equal(wrong.code, '2fa_verification_failed');
  assert.deepEqual(await api.tfaAuthorizeNewMethodConfirm({ code: mail.code, secret: challenge }), {
    success: true,
    msg: 'Authorized: you can add a method in the next 30 minutes.',
  });

  const setup = await api.tfaTotpSetup();
  dump('totp setup', setup);
  totpSecret = keep('totp secret', setup.secret);
  keep('provisioning uri', setup.provisioning_uri);
  assert.match(setup.provisioning_uri, /^otpauth:\/\//);

  const confirmed = await api.tfaConfirmNew({ tfa_method: 'totp', code: await nextTotp(), secret: totpSecret, label: 'Phone app' });
  dump('confirm', confirmed);
  assert.equal(confirmed.success, true);
  assert.equal(confirmed.backup_codes?.length, 10);
  for (const c of confirmed.backup_codes!) keep('backup code', c);

  const s1 = await api.tfaStatus();
  assert.equal(s1.tfa_enabled, true);
  assert.equal(s1.methods.length, 1);
  assert.equal(s1.methods[0]!.method, 'totp');
  assert.equal(s1.backup_codes_remaining, 10);
  assert.equal(s1.new_method_authorized, true);
  assert.equal((await api.currentUser()).tfa_status, 'enabled');
});

test('login with TOTP returns a session key that works as the bearer; expired session falls back once', async () => {
  const r = await api.tfaLogin({ tfa_method: 'totp', code: await nextTotp() });
  dump('login', r);
  const session = keep('session key', r.session_key);
  let token = session;
  let fallbacks = 0;
  const creds: Credentials = {
    token: () => token,
    onAuthFailure: () => {
      fallbacks++;
      token = API_KEY;
      return true;
    },
  };
  const viaSession = h.client({ credentials: creds });
  assert.equal((await viaSession.tfaStatus()).tfa_enabled, true);
  assert.equal(fallbacks, 0);
  await h.ctl.fault({ kind: 'expire_session' });
  assert.equal((await viaSession.listInstances()).instances.length, 0);
  assert.equal(fallbacks, 1);
  assert.equal(token, API_KEY);
});

test('update a method: label and primary flag', async () => {
  const id = (await api.tfaStatus()).methods[0]!.id;
  const r = await api.tfaUpdate({ tfa_method_id: id, label: 'Renamed app', is_primary: true });
  assert.equal(r.success, true);
  assert.equal((await api.tfaStatus()).methods[0]!.label, 'Renamed app');
});

test('SMS method: send, resend, confirm-new; tfa_challenge_exists on a second send', async () => {
  const phone = '+14155550199';
  const sent = await api.tfaSendSms({ phone_number: phone });
  dump('sms', sent);
  const secret = keep('sms secret', sent.secret);
  const again = await failing(api.tfaSendSms({ phone_number: phone }));
  assert.equal(again.code, 'tfa_challenge_exists');
  assert.match(again.userMessage(), /Resend code/);
  const resent = await api.tfaResendSms({ phone_number: phone, secret });
  keep('sms secret', resent.secret);
  const code = keep('sms code', (await h.ctl.lastCode('sms')).code);
  const r = await api.tfaConfirmNew({ tfa_method: 'sms', code, secret: resent.secret, phone_number: phone, label: 'Mobile' });
  assert.equal(r.success, true);
  assert.equal(r.backup_codes, undefined, 'backup codes only come with the first method');
  const methods = (await api.tfaStatus()).methods;
  assert.equal(methods.length, 2);
  assert.match(methods.find((m) => m.method === 'sms')!.phone_number ?? '', /0199$/);
});

test('deprecated paths: test (send), resend, test-submit', async () => {
  await h.ctl.advance(120);
  const phone = '+14155550123';
  const sent = await api.tfaTestDeprecated({ phone_number: phone });
  keep('sms secret', sent.secret);
  const resent = await api.tfaResendDeprecated({ phone_number: phone, secret: sent.secret });
  keep('sms secret', resent.secret);
  const code = keep('sms code', (await h.ctl.lastCode('sms')).code);
  const r = await api.tfaTestSubmitDeprecated({ tfa_method: 'sms', code, secret: resent.secret, phone_number: phone });
  assert.equal(r.success, true);
  const paths = (await h.ctl.requests()).map((q) => `${q.method} ${q.path}`);
  for (const p of ['POST /api/v0/tfa/test/', 'POST /api/v0/tfa/resend/', 'POST /api/v0/tfa/test-submit/']) assert.ok(paths.includes(p), p);
});

test('regenerate backup codes verified by an e-mail code, then log in with a backup code', async () => {
  const mail = await api.tfaSendEmail({});
  const secret = keep('email secret', mail.secret);
  const code = keep('email code', (await h.ctl.lastCode('email')).code);
  const regen = await api.tfaRegenBackupCodes({ tfa_method: 'email', code, secret });
  dump('regen', regen);
  assert.equal(regen.backup_codes.length, 10);
  for (const c of regen.backup_codes) keep('backup code', c);

  const login = await api.tfaLogin({ backup_code: regen.backup_codes[0]! });
  dump('login', login);
  keep('session key', login.session_key);
  assert.equal(login.backup_codes_remaining, 9);
  const reused = await failing(api.tfaLogin({ backup_code: regen.backup_codes[0]! }));
  assert.equal(reused.code, 'invalid_backup_code');
  assert.equal(reused.kind, 'http', 'a wrong backup code is not an auth failure of the key');
});

test('wrong codes lock the method: tfa_locked names the unlock time', async () => {
  let locked;
  for (let i = 0; i < 10 && !locked; i++) {
    const e = await failing(api.tfaLogin({ tfa_method: 'totp', code: '000000' }));
    if (e.code === 'tfa_locked') locked = e;
    else assert.match(e.code ?? '', /^2fa_(login|verification)_failed$/);
  }
  assert.ok(locked, 'the method locked after repeated failures');
  assert.equal(locked.status, 429);
  assert.ok(typeof locked.lockedUntil === 'number');
  assert.match(locked.userMessage(new Date(simNow * 1000)), new RegExp(`until ${formatLocalTime(locked.lockedUntil!)} \\(local time\\)`));
});

test('remove methods: by backup code with target_id, the last one by e-mail code (2FA off)', async () => {
  const st = await api.tfaStatus();
  const codes = [...secrets.entries()].filter(([k]) => k.startsWith('backup code')).map(([, v]) => v);
  const sms = st.methods.filter((m) => m.method === 'sms');
  let remaining: number | undefined;
  for (const m of sms) {
    const r = await api.tfaRemove({ backup_code: codes.pop()!, target_id: m.id });
    remaining = r.remaining_methods;
  }
  assert.equal(remaining, 1);
  const mail = await api.tfaSendEmail({});
  const code = keep('email code', (await h.ctl.lastCode('email')).code);
  const totpId = (await api.tfaStatus()).methods[0]!.id;
  const r = await api.tfaRemove({ tfa_method: 'email', code, secret: keep('email secret', mail.secret), target_id: totpId });
  assert.equal(typeof r.msg, 'string');
  const end = await api.tfaStatus();
  assert.equal(end.tfa_enabled, false);
  assert.equal(end.backup_codes_remaining, 0);
});

test('instance secrets: jupyter_token and instance_api_key are used and never logged', async () => {
  const [offer] = await api.searchOffers({ minDirectPorts: 2, limit: 1 });
  const created = await api.createInstance(offer!.id, { image: 'jupyter/base-notebook', runtype: 'jupyter_direct', label: 'nb-1' });
  dump('create', created);
  keep('instance api key', created.instance_api_key);
  await h.ctl.advance(61);
  const inst = await api.showInstance(created.new_contract);
  dump('instance', inst);
  keep('jupyter token', inst.jupyter_token ?? undefined);
  const scoped = h.client({ credentials: { token: () => created.instance_api_key } });
  await scoped.setInstanceState(created.new_contract, 'stopped');
  const denied = await failing(scoped.listInstances());
  assert.equal(isApiError(denied), true);
});

test('no secret of the run appears in any captured log line', () => {
  const text = h.log.text();
  assert.ok(h.log.lines.length > 40, 'the run produced log output to check');
  assert.match(text, /\*\*\*/, 'the careless dumps were masked, not dropped');
  const leaked = [...secrets.entries()].filter(([, v]) => text.includes(v)).map(([k]) => k);
  assert.deepEqual(leaked, [], 'secret kinds found in the log (values withheld)');
});
