// Hostile server text, odd paths and racing writers against the SSH layer, proven with the
// real OpenSSH client where OpenSSH's parsing decides (ssh -G, and ssh -v for IdentityFile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, utimesSync, appendFileSync, existsSync, rmSync, readdirSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { createApiClient } from '../../../src/api/client';
import type { Transport } from '../../../src/api/transport';
import { sshCommand } from '../../../src/ssh/sshCommand';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { nodeFsPort, type FsPort } from '../../../src/ssh/fsPort';
import { loadTemplate } from '../../../src/create/templateValidation';
import { INCLUDE_MARKER } from '../../../src/ssh/userConfig';
import { captureLogger, silentLogger } from '../../kit/log';
import { noSsh, sshG } from './sshG';
import { instanceRecord } from '../../kit/fixtures';
import { inTempHome } from '../../kit/temp';

const inst = instanceRecord;

const withHome = <T>(name: string, fn: (home: string) => Promise<T>): Promise<T> => inTempHome('gpu-hostile-', fn, { name, ssh: true });

/**
 * nodeFsPort, but `meanwhile(n)` runs once this window has written its n-th temporary copy of
 * `file` (n = 1, 2, ...): after it read the file, before its rename, where another window or
 * program can get in between.
 */
function beforeRenameOf(file: string, meanwhile: (n: number) => unknown): FsPort {
  let n = 0;
  return {
    ...nodeFsPort,
    writeFile: async (path, data, opts) => {
      await nodeFsPort.writeFile(path, data, opts);
      if (dirname(path) === dirname(file) && basename(path).startsWith(`.${basename(file)}.`)) await meanwhile(++n);
    },
  };
}

/** Dates a lock file a minute back: older than the stale time, as if its window had crashed or stalled. */
function ageLock(lock: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
}

function clientAnswering(body: unknown) {
  const transport: Transport = { request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) }) };
  return createApiClient({
    baseUrl: 'https://service.example',
    credentials: { token: () => 'k-123456' },
    log: silentLogger,
    transport,
    retry: { retries: 0 },
    pacing: 'off',
  });
}

// ---- 6. no command is built from unchecked server text ---------------------------------

test('Copy SSH Command: a hostile ssh_host gives no command; a valid one gives exactly ssh -p PORT root@HOST', () => {
  for (const host of [
    'h.example.net;touch${IFS}/tmp/x',
    'h.example.net\ntouch /tmp/x',
    '-oProxyCommand=touch /tmp/x',
    '$(touch /tmp/x)',
    'h`id`.example',
    'h.example.net touch',
    "h'.example",
  ]) {
    assert.equal(sshCommand(inst(5, { ssh_host: host, ssh_port: 2222 })), undefined, JSON.stringify(host));
  }
  assert.equal(sshCommand(inst(5, { ssh_host: 'ssh5.example.net', ssh_port: 2222 })), 'ssh -p 2222 root@ssh5.example.net');
  assert.equal(sshCommand(inst(5, { ssh_host: '2001:db8::7', ssh_port: 2222 })), 'ssh -p 2222 root@2001:db8::7');
  assert.equal(sshCommand(inst(5, { ssh_port: 70000 })), undefined);
});

// ---- 7/8. paths OpenSSH must read back exactly -----------------------------------------

const ODD_DIRS = ["o'brien", 'with space', 'pct %h %d %%', 'ünï©ödé 家'];

for (const dir of ODD_DIRS) {
  test(`a home folder named ${JSON.stringify(dir)}: Include, UserKnownHostsFile and IdentityFile read back exactly by ssh -G`, { skip: noSsh }, () =>
    withHome(dir, async (home) => {
      const user = join(home, '.ssh', 'config');
      writeFileSync(user, 'Host other\n  HostName 10.1.1.1\n', { mode: 0o600 });
      const key = join(home, '.ssh', `id ${dir}`);
      const w = new SshConfigWriter({ home, identityFile: key });
      const alias = await w.writeEntry(inst(77, { ssh_host: 'ssh7.example.net', ssh_port: 23456 }), { user: 'ubuntu' });
      assert.equal((await w.addInclude()).state, 'present');
      const g = sshG(user, alias);
      assert.equal(g.get('hostname'), 'ssh7.example.net');
      assert.equal(g.get('port'), '23456');
      assert.equal(g.get('userknownhostsfile'), w.knownHostsPath, 'no %-token of the path was expanded');
      // ssh -G shows IdentityFile before %-expansion: one round of OpenSSH's expansion must give the path back
      assert.equal(g.get('identityfile')!.replace(/%%/g, '%'), key);
      assert.equal((await w.findEntry(77))?.identityFile, key, 'the entry reads back the path it was given');
    }),
  );
}

test("a template identityFile with ' (and %) reaches ssh as exactly that file (ssh -v names it)", { skip: noSsh }, () =>
  withHome('plain', async (home) => {
    const server = createServer((s) => s.end('not-ssh\r\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const key = join(home, '.ssh', "o'key 100% %h"); // non-ASCII is proven by ssh -G above (ssh -v prints it escaped)
      const w = new SshConfigWriter({ home });
      const alias = await w.writeEntry(inst(9, { ssh_host: '127.0.0.1', ssh_port: port }), { identityFile: key });
      // Asynchronous: a spawnSync would block this process, and with it the server ssh talks to
      // (ssh then waited out its ConnectTimeout: 5 s of every run of this file).
      const r = await new Promise<{ stderr: string }>((resolve) => {
        execFile(
          'ssh',
          ['-v', '-F', w.configPath, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', alias, 'true'],
          { encoding: 'utf8', timeout: 15_000 },
          (_e, _out, stderr) => resolve({ stderr }),
        );
      });
      assert.doesNotMatch(r.stderr, /invalid quotes|bad configuration/i);
      assert.ok(r.stderr.includes(`identity file ${key} type`), r.stderr);
    } finally {
      server.close();
    }
  }),
);

test('a path OpenSSH cannot read back (", \\, control characters) is refused with a clear problem, nothing written', () =>
  withHome('plain', async (home) => {
    const w = new SshConfigWriter({ home });
    for (const [bad, why] of [
      ['/k/a"b', /double quote/],
      ['/k/a\\b', /backslash/],
      ['/k/a\nHost *', /control character/],
      ['/k/a\tb', /control character/],
    ] as const) {
      await assert.rejects(
        w.writeEntry(inst(3), { identityFile: bad }),
        (e: Error) => e.name === 'SshConfigError' && why.test(e.message) && /identityFile/.test(e.message),
      );
    }
    assert.equal(await w.findEntry(3), undefined);
  }));

test('a template whose ssh.identityFile OpenSSH cannot read back has a problem at ssh.identityFile, before anything is rented', async () => {
  const ctx = { env: { KEYDIR: '/keys' }, secret: async () => undefined, readFile: async () => undefined, workspaceFolder: '/ws' };
  for (const [file, why] of [
    ['/k/a\\"b', /double quote/],
    ['/k/a\\\\b', /backslash/],
    ['/k/a\\tb', /control character/],
  ] as const) {
    const r = await loadTemplate(`{"name": "t", "instance": {"image": "i"}, "ssh": {"identityFile": "${file}"}}`, ctx);
    const p = r.problems.find((x) => x.where === 'ssh.identityFile');
    assert.ok(p && why.test(p.message), JSON.stringify(r.problems));
    assert.equal(r.template, undefined);
  }
  // variables are fine: the check runs on the expanded path
  const ok = await loadTemplate('{"name": "t", "instance": {"image": "i"}, "ssh": {"identityFile": "${env:KEYDIR}/o\'brien key"}}', ctx);
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.template?.ssh?.identityFile, "/keys/o'brien key");
});

test('a home folder with a double quote: the Include is refused with the reason, never written broken', () =>
  withHome('say "hi"', async (home) => {
    const user = join(home, '.ssh', 'config');
    writeFileSync(user, 'Host other\n', { mode: 0o600 });
    const w = new SshConfigWriter({ home });
    const st = await w.addInclude();
    assert.equal(st.state, 'refused');
    assert.match(st.state === 'refused' ? st.message : '', /double quote/);
    assert.equal(readFileSync(user, 'utf8'), 'Host other\n');
    await assert.rejects(w.writeEntry(inst(4), {}), /double quote/);
  }));

// ---- 9. ssh_host normalised once, in the schema ----------------------------------------

test('an ssh_host with surrounding whitespace is trimmed by the schema, so polling never drops the pinned host key', () =>
  withHome('plain', async (home) => {
    const api = clientAnswering({
      instances: [{ id: 12, actual_status: 'running', ssh_host: ' ssh5.example.net \n', ssh_port: 40012, public_ipaddr: ' 1.2.3.4 ' }],
    });
    const [i] = (await api.listInstances()).instances;
    assert.equal(i!.ssh_host, 'ssh5.example.net');
    assert.equal(i!.public_ipaddr, '1.2.3.4');
    const w = new SshConfigWriter({ home });
    await w.writeEntry(i!, {});
    const pinned = '[ssh5.example.net]:40012 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinnedKeyPinnedKeyPinnedKeyPinnedKey00\n';
    writeFileSync(w.knownHostsPath, pinned, { mode: 0o600 });
    for (let poll = 0; poll < 3; poll++) {
      const again = (await api.listInstances()).instances;
      assert.deepEqual((await w.reconcile(again)).updated, []);
    }
    assert.equal(readFileSync(w.knownHostsPath, 'utf8'), pinned, 'the pinned key is kept');
  }));

// ---- 10. instance ids are positive integers --------------------------------------------

test('a zero or negative instance id from the server is a malformed answer, and the writer refuses it', () =>
  withHome('plain', async (home) => {
    for (const id of [-3, 0]) {
      await assert.rejects(
        clientAnswering({ instances: [{ id, actual_status: 'running' }] }).listInstances(),
        (e: Error & { kind?: string }) => e.kind === 'malformed',
      );
      await assert.rejects(
        clientAnswering({ instances: { id, actual_status: 'running' } }).showInstance(5),
        (e: Error & { kind?: string }) => e.kind === 'malformed',
      );
    }
    const w = new SshConfigWriter({ home });
    await assert.rejects(w.writeEntry(inst(-3), {}), /positive whole number/);
    await assert.rejects(w.writeEntry(inst(-3), {}), /positive whole number/);
    if (existsSync(w.configPath)) assert.doesNotMatch(readFileSync(w.configPath, 'utf8'), /gpu-.*-3\b/);
  }));

// ---- 11. the lock: unique token, future mtimes ----------------------------------------

test('a lock file dated in the future is stale, not a lock forever', () =>
  withHome('plain', async (home) => {
    const w = new SshConfigWriter({ home, lockTimeoutMs: 1500 });
    mkdirSync(w.dir, { recursive: true, mode: 0o700 });
    const lock = join(w.dir, 'config.lock');
    writeFileSync(lock, '999999 0\n');
    const future = new Date(Date.now() + 24 * 3600_000);
    utimesSync(lock, future, future);
    assert.equal(await w.writeEntry(inst(1), {}), 'gpu-train-1-1');
  }));

test('a writer slower than the stale time does not overwrite the update of the writer that took its lock over', () =>
  withHome('plain', async (home) => {
    const fast = new SshConfigWriter({ home });
    const slow = new SshConfigWriter({
      home,
      fs: beforeRenameOf(fast.configPath, async (n) => {
        if (n > 1) return;
        ageLock(join(fast.dir, 'config.lock')); // writing took this window longer than the stale time
        await fast.writeEntry(inst(2), {}); // another window takes the stale lock over and writes
      }),
    });
    await slow.writeEntry(inst(1), {});
    assert.deepEqual((await fast.entries()).map((e) => e.id).sort(), [1, 2], 'both updates survive');
  }));

test("a window whose lock is taken over while it drops host keys does not write known_hosts over the other window's, and drops its own keys on the next round", () =>
  withHome('plain', async (home) => {
    const fast = new SshConfigWriter({ home });
    await fast.writeEntry(inst(1), {});
    await fast.writeEntry(inst(2), {});
    const other = '[ssh5.example.net]:40003 ssh-ed25519 AAAA3\n';
    writeFileSync(fast.knownHostsPath, `[ssh5.example.net]:40001 ssh-ed25519 AAAA1\n[ssh5.example.net]:40002 ssh-ed25519 AAAA2\n${other}`);
    const slow = new SshConfigWriter({
      home,
      fs: beforeRenameOf(fast.knownHostsPath, async (n) => {
        if (n > 1) return;
        ageLock(join(fast.dir, 'config.lock'));
        assert.equal(await fast.removeEntry(2), true); // drops the key of 2 from the file as it still is
      }),
    });
    assert.equal(await slow.removeEntry(1), true);
    assert.deepEqual(await fast.entries(), []);
    assert.equal(readFileSync(fast.knownHostsPath, 'utf8'), other, 'neither key of a removed entry is left');
  }));

test("the lock settings are the writer's own, for entries and for the Include line: a short timeout gives up on a live lock, a short stale time takes an old one over", () =>
  withHome('plain', async (home) => {
    const dir = new SshConfigWriter({ home }).dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const [name, op] of [
      ['config.lock', (w: SshConfigWriter) => w.writeEntry(inst(1), {})],
      ['include.lock', (w: SshConfigWriter) => w.addInclude()],
    ] as const) {
      const lock = join(dir, name);
      // A live window holds the lock and lets it go 300 ms into the wait: after the 100 ms this
      // writer waits it has given up (the default 5 s would have waited for it).
      writeFileSync(lock, 'another window\n');
      const start = Date.now();
      const releasing: FsPort = {
        ...nodeFsPort,
        stat: async (path) => {
          const st = await nodeFsPort.stat(path);
          if (path === lock && Date.now() - start >= 300) rmSync(lock, { force: true });
          return st;
        },
      };
      await assert.rejects(
        op(new SshConfigWriter({ home, fs: releasing, lockTimeoutMs: 100, lockStaleMs: 60_000 })),
        (e: Error) => e.name === 'LockTimeoutError',
        name,
      );
      // Left 2 s ago by a crashed window: stale for a stale time of 1 s (the default 15 s would wait and time out).
      writeFileSync(lock, 'crashed window\n');
      const twoSecondsAgo = new Date(Date.now() - 2000);
      utimesSync(lock, twoSecondsAgo, twoSecondsAgo);
      await op(new SshConfigWriter({ home, lockStaleMs: 1000 }));
      assert.ok(!existsSync(lock), name);
    }
    assert.deepEqual(
      (await new SshConfigWriter({ home }).entries()).map((e) => e.id),
      [1],
    );
    assert.equal((await new SshConfigWriter({ home }).includeStatus()).state, 'present');
  }));

// ---- 12. another program editing ~/.ssh/config while the Include is added ---------------

test('another program changing ~/.ssh/config while the Include line is added keeps its change', () =>
  withHome('plain', async (home) => {
    const user = join(home, '.ssh', 'config');
    writeFileSync(user, 'Host mine\n  HostName 10.0.0.1\n', { mode: 0o600 });
    // the editor saves right after we read the file, before our rename
    const w = new SshConfigWriter({ home, fs: beforeRenameOf(user, (n) => n === 1 && appendFileSync(user, 'Host added-by-editor\n  HostName 10.0.0.2\n')) });
    assert.equal((await w.addInclude()).state, 'present');
    const text = readFileSync(user, 'utf8');
    assert.match(text, /^# gpu-rental:.*\nInclude /);
    assert.match(text, /Host added-by-editor\n  HostName 10\.0\.0\.2\n/, "the other program's change survived");
    assert.match(text, /Host mine\n/);
  }));

test("an editor that changes ~/.ssh/config during each of the first four attempts: the fifth adds the line; during every attempt: after five it gives up, the editor's text kept", () =>
  withHome('plain', async (home) => {
    const user = join(home, '.ssh', 'config');
    const editing = (times: number): { fs: FsPort; races: () => number } => {
      let races = 0;
      return { fs: beforeRenameOf(user, () => races < times && appendFileSync(user, `# edit ${++races}\n`)), races: () => races };
    };
    writeFileSync(user, 'Host mine\n', { mode: 0o600 });
    const four = editing(4);
    const lines: string[] = [];
    const log = { ...silentLogger, info: (m: string) => void lines.push(m) };
    assert.equal((await new SshConfigWriter({ home, fs: four.fs, log }).addInclude()).state, 'present');
    assert.equal(four.races(), 4);
    assert.equal(lines.filter((l) => /was changed by another program .*reading it again \(round [2-5]\)/.test(l)).length, 4, lines.join('\n'));
    assert.match(readFileSync(user, 'utf8'), /^# gpu-rental:.*\nInclude [^\n]+\n\nHost mine\n# edit 1\n# edit 2\n# edit 3\n# edit 4\n$/);

    writeFileSync(user, 'Host mine\n', { mode: 0o600 });
    const always = editing(Infinity);
    await assert.rejects(new SshConfigWriter({ home, fs: always.fs }).addInclude(), (e: Error) => e.name === 'ConcurrentChangeError');
    assert.equal(always.races(), 5, 'five attempts, then it gives up');
    assert.equal(readFileSync(user, 'utf8'), 'Host mine\n# edit 1\n# edit 2\n# edit 3\n# edit 4\n# edit 5\n', "no Include line over the editor's text");
  }));

test('another program deleting ~/.ssh/config between our read and our rename: not written back from the old read; the line goes into what is there then', () =>
  withHome('plain', async (home) => {
    const user = join(home, '.ssh', 'config');
    writeFileSync(user, 'Host mine\n', { mode: 0o600 });
    const w = new SshConfigWriter({ home, fs: beforeRenameOf(user, (n) => n === 1 && rmSync(user)) });
    assert.equal((await w.addInclude()).state, 'present');
    assert.equal(readFileSync(user, 'utf8'), `${INCLUDE_MARKER}\n${w.includeLine()}\n`);
  }));

test('another program creating ~/.ssh/config between our read (none there) and our rename: its content is kept below our line', () =>
  withHome('plain', async (home) => {
    const user = join(home, '.ssh', 'config');
    const w = new SshConfigWriter({ home, fs: beforeRenameOf(user, (n) => n === 1 && writeFileSync(user, 'Host theirs\n', { mode: 0o600 })) });
    assert.equal((await w.addInclude()).state, 'present');
    assert.equal(readFileSync(user, 'utf8'), `${INCLUDE_MARKER}\n${w.includeLine()}\n\nHost theirs\n`);
  }));

test('writing ~/.ssh/config failing (EACCES, or an error without a code) is a refusal with the reason and a warning, not a throw; the file is left as it was', () =>
  withHome('plain', async (home) => {
    const user = join(home, '.ssh', 'config');
    writeFileSync(user, 'Host mine\n', { mode: 0o600 });
    const failingWith = (err: Error): FsPort => ({
      ...nodeFsPort,
      rename: async (from, to) => (to === user ? Promise.reject(err) : nodeFsPort.rename(from, to)),
    });
    const eacces = () => Object.assign(new Error(`EACCES: permission denied, rename -> '${user}'`), { code: 'EACCES' });
    for (const [err, logged, shown] of [
      [eacces(), 'EACCES', 'EACCES'],
      [new Error('the disk went away'), 'the disk went away', 'error'],
    ] as const) {
      const log = captureLogger();
      const st = await new SshConfigWriter({ home, fs: failingWith(err), log }).addInclude();
      assert.equal(st.state === 'refused' && st.reason, 'write-failed', JSON.stringify(st));
      assert.ok(
        st.state === 'refused' && st.message.includes(`because writing it failed (${shown}).`) && st.message.includes(st.line),
        st.state === 'refused' ? st.message : '',
      );
      assert.deepEqual(
        log.lines.filter((l) => l.startsWith('warn')),
        [`warn ssh: could not add the Include line: ${logged}`],
      );
    }
    assert.equal((await new SshConfigWriter({ home, fs: failingWith(eacces()) }).addInclude()).state, 'refused', 'without a logger as well');
    assert.equal(readFileSync(user, 'utf8'), 'Host mine\n');
    assert.deepEqual(
      readdirSync(dirname(user)).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  }));
