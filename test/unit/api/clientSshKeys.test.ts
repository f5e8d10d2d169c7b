// The SSH-key calls of service-today section 5: the client against the simulator over
// loopback, both list shapes and key field names, validation on both sides.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, rejection, type Harness } from './helpers';
import type { Transport } from '../../../src/api/transport';
import { publicKeyFingerprint, parsePublicKeyLine, samePublicKey } from '../../../src/api/sshKeyFormat';

// Real ed25519 / rsa public keys (made with ssh-keygen for these tests; private halves discarded).
export const KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFwD9Unho/7vK5FT2O5PjFdY7PojRsWttsnCDVe8EsZS alice@laptop';
export const KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICQGbt51U/8a3Ap053WtfHO0yWqVhShtktXOFWhSuBh8 bob@desk';

let h: Harness;
useHarness({ instances: 1, rateLimitPerSecond: 1000 }, (x) => (h = x));
beforeEach(async () => {
  await h.ctl.reset();
});

test('key lines: parsed by material, fingerprinted like ssh-keygen -l, comments ignored when comparing', () => {
  const a = parsePublicKeyLine(KEY_A)!;
  assert.equal(a.type, 'ssh-ed25519');
  assert.equal(a.comment, 'alice@laptop');
  assert.match(publicKeyFingerprint(a), /^SHA256:[A-Za-z0-9+/]{43}$/);
  assert.ok(samePublicKey(KEY_A, KEY_A.replace('alice@laptop', 'other comment')));
  assert.equal(samePublicKey(KEY_A, KEY_B), false);
  for (const bad of [
    '',
    'ssh-ed25519',
    'ssh-ed25519 !!!!',
    'ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIFwD9Unho/7vK5FT2O5PjFdY7PojRsWttsnCDVe8EsZS',
    `${KEY_A}\n${KEY_B}`,
    'no-pty ' + KEY_A,
  ]) {
    assert.equal(parsePublicKeyLine(bad), undefined, bad);
  }
});

test('account keys: add, list, update, delete (with the service errors)', async () => {
  const api = h.client();
  assert.deepEqual(await api.listSshKeys(), []);
  const added = await api.addSshKey(`${KEY_A}\n`);
  assert.ok(added.id > 0);
  assert.equal(added.public_key, KEY_A);
  assert.equal(typeof added.created_at, 'number');
  // the same key material again is the same record
  assert.equal((await api.addSshKey(KEY_A.replace('alice@laptop', 'again'))).id, added.id);
  assert.deepEqual(
    (await api.listSshKeys()).map((k) => k.id),
    [added.id],
  );

  const updated = await api.updateSshKey(added.id, KEY_B);
  assert.equal(updated.public_key, KEY_B);
  assert.deepEqual(await api.deleteSshKey(added.id), { success: true });
  assert.deepEqual(await api.listSshKeys(), []);

  const gone = await rejection(api.deleteSshKey(added.id));
  assert.equal(gone.status, 400);
  assert.equal(gone.code, 'no_ssh_key');
  assert.match(gone.userMessage(), /Refresh the SSH Keys list/);

  const paths = (await h.ctl.requests()).map((r) => `${r.method} ${r.path}`);
  assert.ok(paths.includes('POST /api/v0/ssh/'));
  assert.ok(paths.includes(`PUT /api/v0/ssh/${added.id}/`));
  assert.ok(paths.includes(`DELETE /api/v0/ssh/${added.id}/`));
});

test('a line that is not a public key is refused before sending, and by the service with 400', async () => {
  const api = h.client();
  const before = (await h.ctl.requests()).length;
  const priv = await rejection(api.addSshKey('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----'));
  assert.equal(priv.kind, 'invalid_request');
  assert.match(priv.message, /private key/);
  assert.doesNotMatch(priv.message, /b3BlbnNzaC1rZXktdjEAAAAABG5vbmU/);
  const junk = await rejection(api.addSshKey('hello world'));
  assert.equal(junk.kind, 'invalid_request');
  assert.equal((await h.ctl.requests()).length, before, 'nothing was sent');

  const call = (body: unknown) =>
    fetch(`${h.sim.url}/api/v0/ssh/`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-api-key', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const missing = await call({});
  assert.equal(missing.status, 400);
  assert.equal(((await missing.json()) as { error: string }).error, 'no_ssh_key');
  const notKey = await call({ ssh_key: 'ssh-ed25519 AAAAnotbase64key' });
  assert.equal(notKey.status, 400);
  assert.equal(((await notKey.json()) as { error: string }).error, 'invalid_ssh_key');
  const readOnly = await fetch(`${h.sim.url}/api/v0/ssh/`, {
    method: 'POST',
    headers: { authorization: 'Bearer sim-read-only-key', 'content-type': 'application/json' },
    body: JSON.stringify({ ssh_key: KEY_A }),
  });
  assert.equal(readOnly.status, 403);
});

test('instance keys: an instance holds the account keys of its creation; attach, list, detach', async () => {
  const api = h.client();
  const account = await api.addSshKey(KEY_A);
  const offer = h.sim.state.offers.find((o) => o.rentable && !o.rented && !o.taken && o.verified)!;
  const { new_contract: id } = await api.createInstance(offer.id, { image: 'x/y:1', runtype: 'ssh_proxy' });
  const seeded = (await api.listInstances()).instances.find((i) => i.id !== id)!;

  assert.deepEqual(
    (await api.listInstanceSshKeys(id)).map((k) => k.public_key),
    [KEY_A],
  );
  assert.equal((await api.listInstanceSshKeys(id))[0]!.id, account.id);
  // the seeded instance predates the key: it does not accept it until attached
  assert.deepEqual(await api.listInstanceSshKeys(seeded.id), []);
  assert.equal((await api.attachSshKey(seeded.id, KEY_B)).success, true);
  const keys = await api.listInstanceSshKeys(seeded.id);
  assert.deepEqual(
    keys.map((k) => k.public_key),
    [KEY_B],
  );
  assert.equal(keys[0]!.name, 'bob@desk');
  assert.equal((await api.detachSshKey(seeded.id, keys[0]!.id)).success, true);
  assert.deepEqual(await api.listInstanceSshKeys(seeded.id), []);

  const noKey = await rejection(api.detachSshKey(seeded.id, keys[0]!.id));
  assert.equal(noKey.code, 'no_such_ssh_key');
  const noInst = await rejection(api.attachSshKey(999, KEY_A));
  assert.equal(noInst.status, 404);
  assert.equal(noInst.code, 'no_such_instance');
});

test('both list shapes and both key field names are accepted; deleted keys are left out', async () => {
  const bodies = [
    JSON.stringify([{ id: 1, user_id: 5, key: KEY_A, created_at: '2026-08-01T10:00:00Z', deleted_at: null }]),
    JSON.stringify({
      ssh_keys: [
        { id: 1, public_key: KEY_A, created_at: 1785578400 },
        { id: 2, public_key: KEY_B, deleted_at: 1785578400 },
      ],
    }),
  ];
  for (const text of bodies) {
    const transport: Transport = { request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, text }) };
    const keys = await h.client({ transport }).listSshKeys();
    assert.equal(keys.length, 1, text);
    assert.equal(keys[0]!.public_key, KEY_A);
    assert.equal(keys[0]!.created_at, 1785578400);
  }
  const instanceText = JSON.stringify({ success: true, ssh_keys: [{ id: 3, name: 'x', public_key: KEY_B }] });
  const t2: Transport = { request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, text: instanceText }) };
  assert.deepEqual(await h.client({ transport: t2 }).listInstanceSshKeys(7), [{ id: 3, name: 'x', public_key: KEY_B }]);
  const t3: Transport = {
    request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, text: '{"success":true,"ssh_keys":"[{\\"id\\": 4}]"}' }),
  };
  assert.equal((await rejection(h.client({ transport: t3 }).listInstanceSshKeys(7))).kind, 'malformed');
});
