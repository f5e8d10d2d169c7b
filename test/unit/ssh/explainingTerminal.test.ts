// The SSH terminal's wrapper (dist/sshTerminal.js) run as the terminal runs it, against the
// real OpenSSH client: a failure keeps the terminal open with one sentence of what to do.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { explainSshFailure, sshArgsForEntry } from '../../../src/ssh/explainingTerminal';

const root = resolve(__dirname, '..', '..', '..');
const wrapper = join(root, 'dist', 'sshTerminal.js');

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

test(
  'connection refused: ssh output stays visible, then the advice, and the terminal waits for Enter',
  { skip: !existsSync(wrapper) && 'build first' },
  async () => {
    const port = await closedPort();
    const child = spawn(process.execPath, [wrapper, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-p', String(port), 'root@127.0.0.1'], { stdio: 'pipe' });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    let exited = false;
    const closed = new Promise<number | null>((r) => child.on('close', (c) => ((exited = true), r(c))));
    const deadline = Date.now() + 10_000;
    while (!/Press Enter/.test(err) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(err, /Connection refused/, "ssh's own message is shown");
    assert.match(err, /Nothing accepts SSH connections at that address yet/, 'one sentence of what to do');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(exited, false, 'the terminal stays open until a key is pressed');
    child.stdin.write('\n');
    assert.equal(await closed, 255);
  },
);

test('the advice for each common cause, from OpenSSH messages', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['ssh: connect to host 10.0.0.1 port 41022: Connection refused', 'refused', /still be starting/],
    ['root@ssh5.example: Permission denied (publickey).', 'publickey', /did not accept your SSH key.*identityFile/],
    [
      '@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n...\nOffending ECDSA key in /h/.ssh/gpu-rental/known_hosts:3\n  remove with:\n  ssh-keygen -f "/h/.ssh/gpu-rental/known_hosts" -R "[ssh5.example]:41022"\nHost key verification failed.',
      'hostkey',
      /rented addresses are reused.*ssh-keygen -R/,
    ],
    ['ssh: Could not resolve hostname ssh9.example: Name or service not known', 'resolve', /DNS/],
    ['ssh: connect to host 10.0.0.1 port 22: Connection timed out', 'timeout', /firewall/],
  ];
  for (const [stderr, cause, advice] of cases) {
    const f = explainSshFailure(stderr, 255);
    assert.equal(f.cause, cause, stderr);
    assert.match(f.advice, advice);
  }
  assert.match(explainSshFailure('something else', 255).advice, /exited with code 255: the lines above say why/);
  assert.deepEqual(sshArgsForEntry('gpu-a-1'), ['gpu-a-1']);
  assert.deepEqual(sshArgsForEntry('gpu-a-1', '/tmp/x/config'), ['-F', '/tmp/x/config', 'gpu-a-1']);
});
