// Input validation and what the Account view shows, from real simulator data.
import { test, beforeEach } from 'node:test';
import * as assert from 'node:assert/strict';
import { validateBackupCode, validateLabel, validateOtp, validatePhone, normalizePhone } from '../../../src/account/tfaValidation';
import { accountRows, loadAccount, methodRow, tfaState } from '../../../src/account/accountSnapshot';
import { loadSshKeyNode } from '../../../src/account/sshKeyRows';
import { useTfaHarness } from './tfaHelpers';
import { totp } from '../../../src/sim/totp';
import { manifest } from '../repoRoot';

interface Menus {
  contributes: { menus: Record<string, Array<{ command: string; when: string; group?: string }>> };
}

const t = useTfaHarness();
beforeEach(async () => {
  await t.h.ctl.reset();
});
const fmt = (ms: number) => new Date(ms).toISOString().slice(11, 16);

test('input formats are checked before sending', () => {
  assert.equal(validateOtp('123456'), undefined);
  assert.equal(validateOtp('123 456'), undefined);
  for (const bad of ['12345', '1234567', 'abcdef', '']) assert.match(validateOtp(bad) ?? '', /6-digit/);
  assert.equal(validateBackupCode('ABCD-EFGH-2345'), undefined);
  for (const bad of ['ABCD-EFGH', 'ABCDEFGH2345', 'ABCD-EFGH-23456', 'AB!D-EFGH-2345']) assert.match(validateBackupCode(bad) ?? '', /XXXX-XXXX-XXXX/);
  assert.equal(validatePhone('+14155550123'), undefined);
  assert.equal(validatePhone('+44 20 7183 8750'), undefined);
  assert.equal(normalizePhone('+1 (415) 555-0123'), '+14155550123');
  for (const bad of ['4155550123', '+0123456789', '+1', '+1234567890123456']) assert.match(validatePhone(bad) ?? '', /E\.164/);
  assert.equal(validateLabel('x'.repeat(30)), undefined);
  assert.match(validateLabel('x'.repeat(31)) ?? '', /at most 30/);
});

test('Account rows: signed-in user, 2FA off, add-method hint in words, no row that is a button', async () => {
  const snap = await loadAccount(t.h.api);
  assert.deepEqual(snap.errors, []);
  const rows = accountRows(snap, { nowMs: Date.now(), session: false, fmt });
  assert.equal(rows[0]?.id, 'user');
  assert.match(rows[0]!.label, /@/);
  assert.match(rows[0]!.description ?? '', /credit/);
  assert.equal(rows[1]?.label, 'Two-factor authentication: off');
  // Adding a method is the title bar's shield (every signed-in user sees it); the 2FA row says where.
  assert.deepEqual(
    rows.filter((r) => r.command),
    [],
    'no click-only row',
  );
  assert.match(rows[1]?.tooltip ?? '', /shield in this view's title bar/);
  const shield = manifest<Menus>().contributes.menus['view/title']!.find((m) => m.command === 'gpuRental.tfa.addTotp');
  assert.equal(shield?.when, 'view == gpuRental.account && gpuRental.signedIn');
  assert.match(shield?.group ?? '', /^navigation/, 'the shield is on the title bar, not under its …');
  assert.ok(rows.some((r) => r.label === 'Adding a method: needs authorization'));
});

test('Account rows: methods with primary, failures, lockout end; backup codes; window end', async () => {
  const r = t.h.run({ label: 'Pixel', code: [async () => (await t.h.ctl.lastCode('email')).code, async (s) => totp(s!, await t.h.ctl.now())] });
  assert.ok((await r.flows.addTotp()).ok);
  const id = (await t.h.api.tfaStatus()).methods[0]!.id;
  const wrong = t.h.run({ verify: id, code: ['000001', '000002'], onError: (i) => i.actions[0] });
  await wrong.flows.regenerateBackupCodes();
  const snap = await loadAccount(t.h.api);
  const until = r.flows.authorizedUntil();
  const rows = accountRows(snap, { nowMs: Date.now(), authorizedUntil: until, session: true, fmt });
  assert.equal(rows[1]?.label, 'Two-factor authentication: on');
  assert.equal(rows[1]?.description, '2FA session in use');
  const methods = rows.find((x) => x.id === 'methods')!;
  assert.equal(methods.children?.length, 1);
  const m = methods.children![0]!;
  assert.equal(m.label, 'Pixel');
  assert.equal(m.contextValue, 'tfaMethodPrimary');
  assert.match(m.description ?? '', /Authenticator app · primary · 2 failed/);
  assert.ok(rows.some((x) => x.label === 'Backup codes: 10 remaining'));
  assert.ok(rows.some((x) => x.label === `Adding a method: authorized until ${fmt(until!)}`));
  const locked = methodRow({ id: 9, method: 'sms', phone_number: '***0123', locked_until: 2_000_000_000, fail_count: 5 }, 1_900_000_000_000, fmt);
  assert.match(locked.description ?? '', /SMS \*\*\*0123 · 5 failed · locked until/);
  assert.equal(locked.icon, 'lock');
  assert.equal(locked.contextValue, 'tfaMethod');
});

test('Account rows: legacy state and a team-context error shown as one row', async () => {
  await t.h.ctl.setAccount({ legacy: true, phone: '+14155550111' });
  let snap = await loadAccount(t.h.api);
  assert.equal(tfaState(snap.user, snap.status), 'legacy');
  assert.ok(accountRows(snap, { nowMs: Date.now(), session: false, fmt }).some((r) => r.label === 'Two-factor authentication: on (legacy)'));
  await t.h.ctl.setAccount({ legacy: false, team: true });
  snap = await loadAccount(t.h.api);
  const rows = accountRows(snap, { nowMs: Date.now(), session: false, fmt });
  const err = rows.find((r) => r.id.startsWith('error:'));
  assert.match(err?.label ?? '', /personal/);
});

test('Account rows: SSH Keys node with type, fingerprint, comment, date, and the local mark', async () => {
  const local = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFwD9Unho/7vK5FT2O5PjFdY7PojRsWttsnCDVe8EsZS alice@laptop';
  const other = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICQGbt51U/8a3Ap053WtfHO0yWqVhShtktXOFWhSuBh8 bob@desk';
  const mine = await t.h.api.addSshKey(local);
  await t.h.api.addSshKey(other);
  const fp =
    'SHA256:' +
    (await import('node:crypto'))
      .createHash('sha256')
      .update(Buffer.from(local.split(' ')[1]!, 'base64'))
      .digest('base64')
      .replace(/=+$/, '');
  const { node: built } = await loadSshKeyNode(t.h.api, async () => [fp], fmt);
  const snap = { ...(await loadAccount(t.h.api)), sshKeyNode: built! };
  const node = accountRows(snap, { nowMs: Date.now(), session: false, fmt }).find((r) => r.id === 'sshKeys')!;
  assert.equal(node.label, 'SSH Keys');
  assert.equal(node.contextValue, 'sshKeys');
  assert.equal(node.children?.length, 2);
  const [a, b] = node.children!;
  assert.equal(a!.label, 'alice@laptop');
  assert.equal(a!.contextValue, 'sshKeyLocal');
  assert.equal(a!.sshKey?.id, mine.id);
  assert.ok(a!.description?.includes(fp), a!.description);
  assert.match(a!.description ?? '', /^ssh-ed25519 · SHA256:.* · added .* · private key on this machine$/);
  assert.equal(b!.contextValue, 'sshKey');
  assert.doesNotMatch(b!.description ?? '', /private key on this machine/);
  // none on the account: the node says why it matters, and its inline + adds one (no row that is a button)
  for (const k of await t.h.api.listSshKeys()) await t.h.api.deleteSshKey(k.id);
  const empty = (await loadSshKeyNode(t.h.api, async () => [], fmt)).node!;
  assert.equal(empty.children, undefined, 'no child rows (and no "Add an SSH key…" button-row)');
  assert.equal(empty.command, undefined);
  assert.equal(empty.contextValue, 'sshKeys.none');
  assert.match(empty.description ?? '', /none: add one with \+/);
  assert.match(empty.tooltip ?? '', /Permission denied \(publickey\)/);
  const items = manifest<Menus>().contributes.menus['view/item/context']!.filter((m) => m.command === 'gpuRental.addSshKey');
  const inline = items.filter((m) => m.group?.startsWith('inline'));
  assert.deepEqual(
    inline.map((m) => m.when),
    ['view == gpuRental.account && viewItem == sshKeys.none'],
    'inline only while the account has no key',
  );
  for (const cv of ['sshKeys', 'sshKeys.none']) {
    assert.ok(
      items.some((m) => !m.group?.startsWith('inline') && m.when === `view == gpuRental.account && viewItem == ${cv}`),
      `Add SSH Key… in the context menu of ${cv}`,
    );
  }
});
