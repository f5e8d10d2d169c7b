// The rules for every SSH value that reaches a command line or ~/.ssh/config (src/ssh/sshValues.ts),
// on their own: ports, hosts and users, the target check, default identities, shell quoting, the
// copied command lines and ssh_config paths. (The copied line run by the real OpenSSH: copyCommand.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SshValueError,
  checkSshTarget,
  isDefaultIdentity,
  readSshConfigPath,
  shellWord,
  sshCommandLine,
  sshConfigCommandLine,
  sshConfigPath,
  sshPath,
  sshPathProblem,
  validHost,
  validPort,
  validUser,
} from '../../../src/ssh/sshValues';

test('a default key (~/.ssh/id_ed25519) gets no -i; a line break in a path is refused', () => {
  const t = { host: '203.0.113.7', port: 41022, user: 'root' };
  assert.equal(sshCommandLine(t, { identityFile: '/home/u/.ssh/id_ed25519', home: '/home/u' }), 'ssh -p 41022 root@203.0.113.7');
  assert.equal(
    sshCommandLine(t, { identityFile: '/home/u/.ssh/gpu-rental_ed25519', home: '/home/u' }),
    'ssh -i /home/u/.ssh/gpu-rental_ed25519 -o IdentitiesOnly=yes -p 41022 root@203.0.113.7',
  );
  assert.throws(() => sshCommandLine(t, { identityFile: '/tmp/k\nrm -rf ~', home: '/home/u' }), SshValueError);
  assert.equal(shellWord('C:\\Users\\A B\\.ssh\\k', 'k', 'win32'), '"C:\\Users\\A B\\.ssh\\k"');
  assert.equal(
    sshCommandLine(t, { identityFile: 'C:\\Users\\A B\\.ssh\\k', home: 'C:\\Users\\A B', platform: 'win32' }),
    'ssh -i "C:/Users/A B/.ssh/k" -o IdentitiesOnly=yes -p 41022 root@203.0.113.7',
  );
  assert.equal(isDefaultIdentity('C:\\Users\\a\\.ssh\\id_rsa', 'C:\\Users\\A', 'win32'), true);
  assert.throws(() => shellWord('say "hi"', 'k', 'win32'), SshValueError);
});

test('what a port, a host and a user may be: the boundaries', () => {
  for (const p of [1, 22, 65535]) assert.equal(validPort(p), true, String(p));
  for (const p of [0, -1, 65536, 22.5, Number.NaN, '22', undefined]) assert.equal(validPort(p), false, String(p));
  for (const h of ['a', 'ssh5.example.net', '203.0.113.7', '::1', 'fe80::1:2', '2001:db8::12', '::ffff:10.0.0.1', `${'a'.repeat(253)}`])
    assert.equal(validHost(h), true, h);
  for (const h of ['', '-oProxyCommand=x', 'a b', 'host;rm', 'host\nProxyCommand x', 'a.', '.a', `${'a'.repeat(254)}`, 22, undefined])
    assert.equal(validHost(h), false, String(h));
  for (const u of ['root', 'ubuntu', '_svc', 'a.b-c', `u${'x'.repeat(63)}`]) assert.equal(validUser(u), true, u);
  for (const u of ['', '-root', 'ro ot', 'root\n', `u${'x'.repeat(64)}`, 7]) assert.equal(validUser(u), false, String(u));
});

test('checkSshTarget: each missing or bad part gives its own problem, never an address', () => {
  assert.deepEqual(checkSshTarget(5, 'ssh5.example.net', 40005), { ok: true, host: 'ssh5.example.net', port: 40005, user: 'root' });
  assert.deepEqual(checkSshTarget(5, 'ssh5.example.net', 40005, 'ubuntu'), { ok: true, host: 'ssh5.example.net', port: 40005, user: 'ubuntu' });
  const problem = (t: ReturnType<typeof checkSshTarget>) => (t.ok ? assert.fail('accepted') : t.problem);
  for (const [host, port] of [
    [undefined, 22],
    [null, 22],
    ['', 22],
    ['h', undefined],
    ['h', null],
  ] as const)
    assert.match(problem(checkSshTarget(5, host, port)), /no SSH address yet/);
  assert.match(problem(checkSshTarget(5, 'a;b', 22)), /SSH host .* not a valid host name/);
  assert.match(problem(checkSshTarget(5, 'h', 0)), /not a valid port/);
  assert.match(problem(checkSshTarget(5, 'h', 22, 'ro ot')), /SSH user "ro ot" is not a valid user name/);
  assert.match(problem(checkSshTarget(5, 'h', 22, 'a\nb')), /SSH user "a\?b"/, 'control characters are not printed');
  assert.match(problem(checkSshTarget(5, 'h', 22, `-${'x'.repeat(100)}`)), new RegExp(`SSH user "-${'x'.repeat(79)}" is not`), 'at most 80 characters of it');
});

test('default identities: only ~/.ssh/id_* of that home, a trailing slash aside; case and backslashes only on Windows', () => {
  assert.equal(isDefaultIdentity('/home/u/.ssh/id_rsa', '/home/u/'), true);
  assert.equal(isDefaultIdentity('/home/u/.ssh/id_rsa', '/home/u//', 'linux'), true, 'any number of trailing slashes');
  assert.equal(isDefaultIdentity('/home/u/.ssh/id_ed25519_sk', '/home/u', 'linux'), true);
  assert.equal(isDefaultIdentity('/home/u/.ssh/ID_RSA', '/home/u', 'linux'), false);
  assert.equal(isDefaultIdentity('/home/v/.ssh/id_rsa', '/home/u', 'linux'), false);
  assert.equal(isDefaultIdentity('/home/u/.ssh/id_rsa.pub', '/home/u', 'linux'), false);
  assert.equal(isDefaultIdentity('C:\\Users\\a\\.ssh\\id_rsa', 'C:\\Users\\a', 'linux'), false);
  assert.equal(isDefaultIdentity('C:/Users/A/.ssh/ID_ED25519', 'c:\\users\\a\\', 'win32'), true);
});

test('shellWord: plain words as they are; anything else quoted for the platform; control characters refused', () => {
  assert.equal(shellWord('/home/u/.ssh/k_1-a.b@c:d%e+f=g,h', 'k', 'linux'), '/home/u/.ssh/k_1-a.b@c:d%e+f=g,h');
  assert.equal(shellWord('-oX', 'k', 'linux'), "'-oX'", 'an option-looking word is quoted');
  assert.equal(shellWord("it's here", 'k', 'linux'), "'it'\\''s here'");
  assert.equal(shellWord('a$b', 'k', 'linux'), "'a$b'");
  assert.equal(shellWord('a b', 'k', 'win32'), '"a b"');
  assert.equal(shellWord('plain', 'k', 'win32'), 'plain');
  for (const bad of ['a\tb', 'a\u0000b', 'a\u007fb', 'a\rb'])
    assert.throws(
      () => shellWord(bad, 'The thing', 'linux'),
      (e: Error) => e instanceof SshValueError && /^The thing "a\?b" cannot be put on a command line: it contains a control character/.test(e.message),
    );
  assert.throws(() => shellWord('"', 'The thing', 'win32'), /The thing """ cannot be put on a command line: it contains a double quote/);
  assert.equal(new SshValueError('x').name, 'SshValueError');
});

test('ssh command lines: the key only when ssh would not try it, trimmed; the -F form only with a plain alias', () => {
  const t = { host: 'h.example', port: 2222, user: 'root' };
  assert.equal(sshCommandLine(t), 'ssh -p 2222 root@h.example');
  assert.equal(sshCommandLine(t, { identityFile: '  ' }), 'ssh -p 2222 root@h.example');
  assert.equal(
    sshCommandLine(t, { identityFile: ' /k/id_rsa ', platform: 'linux' }),
    'ssh -i /k/id_rsa -o IdentitiesOnly=yes -p 2222 root@h.example',
    'no home: always named',
  );
  assert.equal(sshCommandLine(t, { identityFile: '/home/u/.ssh/id_rsa', home: '/home/u', platform: 'linux' }), 'ssh -p 2222 root@h.example');
  assert.equal(sshConfigCommandLine('/c/config', 'gpu-7_a.b', 'linux'), 'ssh -F /c/config gpu-7_a.b');
  assert.equal(sshConfigCommandLine('C:\\c d\\config', 'a', 'win32'), 'ssh -F "C:/c d/config" a');
  for (const alias of ['', '-x', 'a b', 'a;b', '.a']) assert.throws(() => sshConfigCommandLine('/c/config', alias, 'linux'), SshValueError, alias);
});

test('paths in ssh_config: what is refused and why, how it is quoted, and read back', () => {
  assert.equal(sshPathProblem('/a/b c', 'linux'), undefined);
  assert.match(sshPathProblem('/a\tb', 'linux')!, /control character/);
  assert.match(sshPathProblem('/a\u007fb', 'linux')!, /control character/);
  assert.match(sshPathProblem('/a"b', 'linux')!, /double quote/);
  assert.match(sshPathProblem('/a\\b', 'linux')!, /backslash/);
  assert.equal(sshPathProblem('C:\\a\\b', 'win32'), undefined);
  assert.match(sshPathProblem('/a/${HOME}', 'linux')!, /environment variable/);
  assert.equal(sshPathProblem('/a/$HOME/{x}', 'linux'), undefined);
  assert.equal(sshPath('C:\\a\\b', 'win32'), 'C:/a/b');
  assert.equal(sshPath('/a\\b', 'linux'), '/a\\b');
  assert.equal(sshConfigPath('/home/u/.ssh/k_1-a.b@c:d+e,f', 'k', { percent: true }), '/home/u/.ssh/k_1-a.b@c:d+e,f');
  assert.equal(sshConfigPath('~/k', 'k', { percent: false }), '~/k');
  assert.equal(sshConfigPath('/a b/k', 'k', { percent: false }), '"/a b/k"');
  assert.equal(sshConfigPath("/o'b/k", 'k', { percent: false }), '"/o\'b/k"');
  assert.equal(sshConfigPath('/p%h/k', 'k', { percent: true }), '"/p%%h/k"');
  assert.equal(sshConfigPath('/p%h/k', 'k', { percent: false }), '"/p%h/k"');
  assert.throws(
    () => sshConfigPath('/a"b', 'The SSH identity file', { percent: true }),
    /^SshValueError: The SSH identity file "\/a"b" cannot be written into an SSH config: it contains a double quote/,
  );
  assert.equal(readSshConfigPath('"/p%%h/k"', { percent: true }), '/p%h/k');
  assert.equal(readSshConfigPath('"/p%%h/k"', { percent: false }), '/p%%h/k');
  assert.equal(readSshConfigPath('/plain', { percent: true }), '/plain');
  assert.equal(readSshConfigPath('"', { percent: false }), '"', 'a lone quote is not a quoted empty value');
  assert.equal(readSshConfigPath('"a', { percent: false }), '"a');
  assert.equal(readSshConfigPath('a"', { percent: false }), 'a"');
  assert.equal(readSshConfigPath('""', { percent: false }), '');
});
