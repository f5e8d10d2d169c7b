// A template's ssh.identityFile (with IdentitiesOnly yes), user and localForwards survive every
// rewrite of an instance's managed entry: entry sync after the address changed (new proxy
// host/port, proxy <-> direct), Connect with a different key in the setting or picked by the key
// check, and both again once the create flow's recorded options are gone (then the entry itself
// is what carries them). Each result is read by the real OpenSSH client (`ssh -G`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { type SshOptions } from '../../../src/ssh/sshTypes';
import { noSsh, sshGAll } from './sshG';
import { syncHarness } from './syncHarness';
import { assertTemplateEntry, otherKey, templateSsh } from './templateEntry';

const ID = 21;
const proxyA: Instance = {
  id: ID,
  state: 'running',
  actual_status: 'running',
  label: 'train',
  image_runtype: 'ssh ssh_proxy',
  ssh_host: 'ssh5.example.net',
  ssh_port: 40021,
};
/** After a stop/start: another proxy host and port. */
const proxyB: Instance = { ...proxyA, ssh_host: 'ssh7.example.net', ssh_port: 51021 };
/** The same instance reached directly (22/tcp mapped), the proxy as its fallback. */
const direct: Instance = {
  ...proxyB,
  image_runtype: 'ssh ssh_direc ssh_proxy',
  public_ipaddr: '203.0.113.9',
  ports: [{ container: '22/tcp', hostPort: 41022 }],
};
const directMoved: Instance = { ...direct, public_ipaddr: '203.0.113.77', ports: [{ container: '22/tcp', hostPort: 42022 }] };
const stopped: Instance = { ...proxyB, state: 'stopped', actual_status: 'stopped', ssh_port: 0, ports: null };

for (const recorded of [true, false]) {
  const kept = recorded ? 'with the recorded options' : 'after the recorded options were lost';
  test(
    `entry sync ${kept}: stop/start to a new proxy address, proxy -> direct -> moved direct -> proxy keeps the template's IdentityFile, IdentitiesOnly, user and forwards over the setting's key`,
    { skip: noSsh },
    async () => {
      // The sync's writer is configured as createWriter configures it: the setting's key (a different one).
      const h = syncHarness({ identityFile: '~/.ssh/setting_ed25519', origin: 'api.example' });
      try {
        h.state.registered = { [String(ID)]: templateSsh };
        h.set([proxyA]);
        const alias = await h.writer.writeEntry(proxyA, templateSsh); // what the create flow writes once it runs
        await h.sync.flush();
        assertTemplateEntry(h.writer.configPath, alias, h.home, proxyA, 'as created');
        if (!recorded) h.state.registered = {};
        const steps: Array<[string, Instance]> = [
          ['stopped', stopped],
          ['started on a new proxy address', proxyB],
          ['now direct', direct],
          ['direct, moved', directMoved],
          ['back to the proxy', proxyA],
        ];
        for (const [what, inst] of steps) {
          h.set([inst]);
          await h.sync.flush();
          const e = await h.writer.findEntry(ID);
          assert.equal(e?.alias, alias, `${what}: same alias`);
          // A stopped instance keeps its entry as it was.
          assertTemplateEntry(h.writer.configPath, alias, h.home, inst === stopped ? proxyA : inst, what);
        }
      } finally {
        h.done();
      }
    },
  );

  test(`entry sync ${kept}: an instance missing from one list read and back on a new address keeps the template's key`, { skip: noSsh }, async () => {
    const h = syncHarness({ identityFile: '~/.ssh/setting_ed25519' });
    try {
      h.state.registered = recorded ? { [String(ID)]: templateSsh } : {};
      const alias = await h.writer.writeEntry(proxyA, templateSsh);
      h.set([]);
      await h.sync.flush();
      assert.ok(await h.writer.findEntry(ID), 'one read without it is not proof it is gone');
      h.set([proxyB]);
      await h.sync.flush();
      assertTemplateEntry(h.writer.configPath, alias, h.home, proxyB, 'back after a read that missed it');
    } finally {
      h.done();
    }
  });
}

for (const recorded of [true, false]) {
  const kept = recorded ? 'with the recorded options' : 'after the recorded options were lost';
  test(
    `Connect ${kept}: the setting's key or a key the check picked never replaces the template's, at the same address or a new one`,
    { skip: noSsh },
    async () => {
      const h = syncHarness();
      try {
        const created = new SshConfigWriter({ home: h.home, identityFile: otherKey(h.home, 'picked') });
        const alias = await created.writeEntry(proxyA, templateSsh);
        const opts = recorded ? templateSsh : undefined;
        // The writers Connect makes: createWriter with the setting (else the picked key), and the key Connect passes (setting, else the check's).
        const cases: Array<[string, string, Instance]> = [
          ['the setting names another key', otherKey(h.home, 'setting'), proxyA],
          ['the key check picked another key', otherKey(h.home, 'picked'), proxyA],
          ['the setting names another key, address changed', otherKey(h.home, 'setting'), proxyB],
          ['the key check picked another key, now direct', otherKey(h.home, 'picked'), direct],
          ['the setting names another key, back to the proxy', '~/.ssh/setting_ed25519', proxyA],
        ];
        for (const [what, key, inst] of cases) {
          const w = new SshConfigWriter({ home: h.home, identityFile: key });
          assert.equal(await w.writeEntry(inst, opts, { key }), alias, what);
          assertTemplateEntry(w.configPath, alias, h.home, inst, what);
        }
      } finally {
        h.done();
      }
    },
  );
}

test("Connect without a template key still uses the setting's or the picked key (IdentitiesOnly), replacing an older default", { skip: noSsh }, async () => {
  const h = syncHarness();
  try {
    const noKey: SshOptions = { user: 'ubuntu' };
    const old = join(h.home, '.ssh', 'old_ed25519');
    const alias = await new SshConfigWriter({ home: h.home, identityFile: old }).writeEntry(proxyA, noKey);
    assert.deepEqual(sshGAll(h.writer.configPath, alias).get('identityfile'), [old]);
    const picked = otherKey(h.home, 'picked');
    for (const recorded of [noKey, undefined]) {
      await new SshConfigWriter({ home: h.home, identityFile: picked }).writeEntry(proxyA, recorded, { key: picked });
      const g = sshGAll(h.writer.configPath, alias);
      assert.deepEqual(g.get('identityfile'), [picked], "a key from the setting or the check is not the template's: a newer one replaces it");
      assert.deepEqual(g.get('identitiesonly'), ['yes']);
      assert.deepEqual(g.get('user'), ['ubuntu']);
      await new SshConfigWriter({ home: h.home, identityFile: old }).writeEntry(proxyA, noKey); // back to the old key for the next round
    }
  } finally {
    h.done();
  }
});

test(
  'a new session: recorded options read back from stored JSON, a fresh writer and sync with another setting key; the entry keeps the template key after a move',
  { skip: noSsh },
  async () => {
    const first = syncHarness();
    const stored = JSON.stringify({ [String(ID)]: templateSsh }); // globalState is JSON
    try {
      const alias = await first.writer.writeEntry(proxyA, templateSsh);
      first.sync.dispose();
      const next = syncHarness({ identityFile: otherKey(first.home, 'setting') }, first.home);
      next.state.registered = JSON.parse(stored);
      next.set([proxyB]);
      await next.sync.flush();
      assertTemplateEntry(next.writer.configPath, alias, first.home, proxyB, 'after a reload');
      next.sync.dispose();
    } finally {
      first.done();
    }
  },
);

test(
  'an entry written before this version marked where its key came from: with the recorded options the first sync marks it, and later rewrites keep the key without them',
  { skip: noSsh },
  async () => {
    const h = syncHarness({ identityFile: '~/.ssh/setting_ed25519' });
    try {
      const alias = await h.writer.writeEntry(proxyA, templateSsh);
      // The entry as an earlier version wrote it: no note that the key is the template's.
      writeFileSync(h.writer.configPath, readFileSync(h.writer.configPath, 'utf8').replace(/^# gpu-rental:identity.*\n/m, ''));
      h.state.registered = { [String(ID)]: templateSsh };
      h.set([proxyA]);
      await h.sync.flush();
      assert.equal((await h.writer.findEntry(ID))?.templateIdentity, true, 'the sync marked the template key');
      const before = readFileSync(h.writer.configPath, 'utf8');
      assert.deepEqual(
        await h.writer.reconcile([proxyA], h.state.registered),
        { added: [], updated: [], removed: [] },
        'once marked, the same options rewrite nothing',
      );
      assert.equal(readFileSync(h.writer.configPath, 'utf8'), before);
      h.state.registered = {};
      const w = new SshConfigWriter({ home: h.home, identityFile: otherKey(h.home, 'setting') });
      await w.writeEntry(proxyB, undefined, { key: otherKey(h.home, 'setting') });
      assertTemplateEntry(w.configPath, alias, h.home, proxyB, 'Connect without the recorded options');
    } finally {
      h.done();
    }
  },
);
