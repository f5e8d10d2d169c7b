// Local key discovery and creation (temporary HOME): keys count only with their private half,
// the account is matched by key material (not comment), nothing is ever overwritten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hasTool, needs } from '../tools';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyPair, ensureAccountKey, findLocalKeys, readLocalKey, usableKey, SshKeyError, registerKey, type KeyPrompts } from '../../../src/ssh/keys';
import { recordedPrompts } from '../../kit/prompts';
import { generateEd25519 } from '../../../src/ssh/keygen';
import { utils } from 'ssh2';
import type { AccountSshKey, Instance } from '../../../src/api/types';
import { inTempDir } from '../../kit/temp';

const ED = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFwD9Unho/7vK5FT2O5PjFdY7PojRsWttsnCDVe8EsZS alice@laptop';
const ED2 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICQGbt51U/8a3Ap053WtfHO0yWqVhShtktXOFWhSuBh8 bob@desk';
const haveKeygen = hasTool('ssh-keygen');

function withHome(fn: (home: string) => Promise<void>): () => Promise<void> {
  return () =>
    inTempDir('gpu-rental-keys-', (home) => {
      mkdirSync(join(home, '.ssh'), { mode: 0o700 });
      return fn(home);
    });
}

const put = (home: string, name: string, text: string) => writeFileSync(join(home, '.ssh', name), text, { mode: 0o600 });

test(
  'discovery: default names and preferred paths, only with their private half, one per key material',
  withHome(async (home) => {
    put(home, 'id_ed25519.pub', `${ED}\n`);
    put(home, 'id_ed25519', 'private');
    put(home, 'id_rsa.pub', `${ED2}\n`); // no private half here
    put(home, 'work.pub', ED.replace('alice@laptop', 'same key, other comment'));
    put(home, 'work', 'private');
    const keys = await findLocalKeys(home, ['~/.ssh/work']);
    assert.deepEqual(
      keys.map((k) => k.privatePath),
      [join(home, '.ssh', 'work')],
      'same material once, preferred path first',
    );
    assert.match(keys[0]!.fingerprint, /^SHA256:/);
    assert.equal(keys[0]!.type, 'ssh-ed25519');
  }),
);

test(
  'the account is matched by key material, not comment',
  withHome(async (home) => {
    put(home, 'id_ed25519.pub', ED);
    put(home, 'id_ed25519', 'private');
    const local = await findLocalKeys(home);
    const account: AccountSshKey[] = [
      { id: 1, public_key: ED2 },
      { id: 2, public_key: ED.replace('alice@laptop', 'renamed on the web') },
    ];
    assert.equal(usableKey(local, account)?.record.id, 2);
    assert.equal(usableKey(local, [{ id: 1, public_key: ED2 }]), undefined);
  }),
);

test(
  'a private key or junk is never read as a public key',
  withHome(async (home) => {
    put(home, 'oops.pub', '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n');
    put(home, 'junk.pub', 'hello\n');
    await assert.rejects(readLocalKey('~/.ssh/oops.pub', home, false), (e: SshKeyError) => e.code === 'private-key' && !e.message.includes('abc'));
    await assert.rejects(readLocalKey('~/.ssh/junk.pub', home, false), (e: SshKeyError) => e.code === 'not-public-key');
    await assert.rejects(readLocalKey('~/.ssh/none.pub', home, false), (e: SshKeyError) => e.code === 'not-found');
  }),
);

for (const generator of ['library', 'ssh-keygen'] as const) {
  test(
    `create (${generator}): ~/.ssh/gpu-rental_ed25519, 0600, OpenSSH format, never overwritten`,
    { skip: generator === 'ssh-keygen' && needs('ssh-keygen') },
    withHome(async (home) => {
      const k = await createKeyPair({ home, comment: 'me@here', generator });
      assert.equal(k.privatePath, join(home, '.ssh', 'gpu-rental_ed25519'));
      assert.equal(k.type, 'ssh-ed25519');
      assert.equal(k.comment, 'me@here');
      if (process.platform !== 'win32') assert.equal(statSync(k.privatePath).mode & 0o777, 0o600);
      assert.match(readFileSync(k.privatePath, 'utf8'), /^-----BEGIN OPENSSH PRIVATE KEY-----/);
      if (haveKeygen) {
        const y = spawnSync('ssh-keygen', ['-y', '-f', k.privatePath], { encoding: 'utf8' });
        assert.equal(y.status, 0, y.stderr);
        assert.equal(y.stdout.split(' ').slice(0, 2).join(' '), k.line.split(' ').slice(0, 2).join(' '));
      }
      const again = await createKeyPair({ home, generator });
      assert.equal(again.fingerprint, k.fingerprint, 'the existing pair is reused');
    }),
  );
}

// The SSH library drops leading zero bytes of an ed25519 public key (about one pair in 256), and
// OpenSSH then refuses the file ("error in libcrypto"): every pair the fallback writes must be whole.
test('library pairs: 1,500 in a row all parse whole (the public key is 32 bytes), and OpenSSH loads a sample', () => {
  for (let i = 0; i < 1500; i++) {
    const pair = generateEd25519('me@here');
    const pub = utils.parseKey(pair.public);
    const priv = utils.parseKey(pair.private);
    assert.ok(!(pub instanceof Error) && !Array.isArray(pub), `pair ${i}: the public key does not parse (${String(pub)})`);
    assert.ok(!(priv instanceof Error) && !Array.isArray(priv), `pair ${i}: the private key does not parse`);
    assert.equal(pub.getPublicSSH().length, 51, `pair ${i}: the public key blob is cut`);
    assert.ok(pub.getPublicSSH().equals(priv.getPublicSSH()), `pair ${i}: the halves do not match`);
  }
});

test('library pairs: a cut pair is made again; a library that never makes a whole one is an error, not a bad file', () => {
  const good = utils.generateKeyPairSync('ed25519', { comment: 'x' });
  const cut = { private: good.private, public: `ssh-ed25519 ${Buffer.from(good.public.split(' ')[1]!, 'base64').subarray(0, 50).toString('base64')} x` };
  let calls = 0;
  const pair = generateEd25519('x', (() => (++calls === 1 ? cut : good)) as unknown as typeof utils.generateKeyPairSync);
  assert.equal(calls, 2);
  assert.equal(pair.public, good.public);
  assert.throws(() => generateEd25519('x', (() => cut) as unknown as typeof utils.generateKeyPairSync), /no usable ed25519 key pair in 16 attempts/);
});

test(
  'create: a lone half is left untouched and reported',
  withHome(async (home) => {
    put(home, 'gpu-rental_ed25519.pub', ED);
    await assert.rejects(createKeyPair({ home, generator: 'library' }), (e: SshKeyError) => e.code === 'exists' && /left untouched/.test(e.message));
    assert.equal(readFileSync(join(home, '.ssh', 'gpu-rental_ed25519.pub'), 'utf8'), ED);
  }),
);

function fakeApi(initial: AccountSshKey[] = []) {
  const keys = [...initial];
  const attached: Array<[number, string]> = [];
  return {
    keys,
    attached,
    api: {
      listSshKeys: async () => [...keys],
      addSshKey: async (line: string) => {
        const k = { id: 100 + keys.length, public_key: line };
        keys.push(k);
        return k;
      },
      attachSshKey: async (id: number, line: string) => {
        attached.push([id, line]);
        return { success: true };
      },
    },
  };
}

const inst = (id: number, state: Instance['state']) => ({ id, state, actual_status: state }) as Instance;

test(
  'ensure: one prompt; continue, cancel, create (registered + attached to running instances only)',
  withHome(async (home) => {
    const f = fakeApi();
    const once = recordedPrompts<KeyPrompts>({ choose: async () => 'continue', pickKey: async () => undefined });
    const cont = await ensureAccountKey({ api: f.api, home, prompts: once.prompts });
    assert.equal(cont.outcome, 'continued');
    assert.deepEqual(
      once.asked.map((a) => a.prompt),
      ['choose'],
      'one question, and no key list',
    );
    assert.equal(f.keys.length, 0);
    const dismissed = await ensureAccountKey({ api: f.api, home, prompts: { choose: async () => undefined, pickKey: async () => undefined } });
    assert.equal(dismissed.outcome, 'cancelled');

    const created = await ensureAccountKey({
      api: f.api,
      home,
      prompts: { choose: async (_m, local) => (assert.equal(local.length, 0), 'create'), pickKey: async () => undefined },
      instances: () => [inst(1, 'running'), inst(2, 'stopped')],
    });
    assert.equal(created.outcome, 'created');
    assert.equal(f.keys.length, 1);
    assert.deepEqual(
      f.attached.map(([id]) => id),
      [1],
    );
    assert.ok(created.outcome === 'created' && created.key.privatePath.endsWith('gpu-rental_ed25519'));
    // registering the same key again adds nothing and attaches nothing
    const again = await registerKey({ api: f.api, instances: () => [inst(1, 'running')] }, (created as { key: { line: string; fingerprint: string } }).key);
    assert.equal(again.record.id, f.keys[0]!.id);
    assert.equal(f.keys.length, 1);
    assert.equal(f.attached.length, 1);
  }),
);

test(
  'ensure: register offers the local keys with fingerprints and registers the picked one',
  withHome(async (home) => {
    put(home, 'id_ed25519.pub', ED);
    put(home, 'id_ed25519', 'x');
    put(home, 'id_ecdsa.pub', ED2); // a wrong name does not matter: the line decides
    put(home, 'id_ecdsa', 'x');
    const f = fakeApi();
    const r = await ensureAccountKey({
      api: f.api,
      home,
      prompts: { choose: async () => 'register', pickKey: async (keys) => (assert.equal(keys.length, 2), keys[1]) },
    });
    assert.equal(r.outcome, 'registered');
    assert.equal(f.keys[0]!.public_key, ED2);
  }),
);
