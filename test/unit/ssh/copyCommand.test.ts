// Copy SSH Command's line, pasted into a real shell and run by the real OpenSSH client against
// the simulator's SSH servers: the extension-made key is named (-i, IdentitiesOnly) because ssh
// does not try it by default; paths with spaces and quotes survive the shell; the demo's form
// `ssh -F <file> <alias>` reaches the host. Temporary HOME; never the user's ~/.ssh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { sshAddress } from '../../../src/ssh/address';
import { SshValueError, checkSshTarget, isDefaultIdentity, sshCommandLine, sshConfigCommandLine } from '../../../src/ssh/sshValues';
import { useSshFixture, type SshFixture } from '../../kit/sshFixture';
import { needs } from '../tools';

// In CI a missing ssh fails these tests with the install hint instead of skipping them.
const skip = needs('ssh');

let f: SshFixture;
let inst: Instance;

useSshFixture({ bootSeconds: 60, seed: 11, instances: 0 }, 'gpu-rental-copy-', 'gpu-rental-copy-test', async (started) => {
  f = started;
  await f.api.addSshKey(f.key.line);
  const offer = f.sim.state.offers.find((x) => x.rentable && x.verified && !x.rented && !x.taken && (x.direct_port_count as number) > 0)!;
  const { new_contract: id } = await f.api.createInstance(offer.id, { image: 'sim/base:1', runtype: 'ssh_direct', label: 'copy' });
  await f.ctl.finishBoot(id);
  inst = await f.api.showInstance(id);
});

/**
 * Runs a copied command line through `sh -c` as a user would paste it, with options that only keep
 * the test quiet and away from the real ~/.ssh (no agent, no user config, no known_hosts prompt).
 */
function paste(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  assert.match(line, /^ssh /);
  const quiet = `-o BatchMode=yes -o ConnectTimeout=10 -o IdentityAgent=none -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null${/ -F /.test(line) ? '' : ' -F /dev/null'}`;
  const cmd = `ssh ${quiet} ${line.slice(4)} 'echo "$CONTAINER_ID"'`;
  return new Promise((resolve) =>
    execFile('sh', ['-c', cmd], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: f.home }, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    ),
  );
}

function target() {
  const a = sshAddress(inst)!;
  const t = checkSshTarget(inst.id, a.host, a.port);
  assert.ok(t.ok);
  return t;
}

test('the extension-made key is not one ssh tries: the copied line names it, and it logs in', { skip }, async () => {
  assert.equal(isDefaultIdentity(f.key.privatePath, f.home), false);
  const line = sshCommandLine(target(), { identityFile: f.key.privatePath, home: f.home });
  assert.equal(line, `ssh -i ${f.key.privatePath} -o IdentitiesOnly=yes -p ${target().port} root@${target().host}`);
  const r = await paste(line);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), String(inst.id));
  // The line as it was (no -i): refused, which is what a user saw.
  const plain = await paste(sshCommandLine(target()));
  assert.notEqual(plain.code, 0);
  assert.match(plain.stderr, /Permission denied \(publickey\)/);
});

test('a key path with spaces, quotes and a $ is quoted for the shell and still logs in', { skip }, async () => {
  const dir = join(f.home, `my keys`, `it's "$HOME" key`);
  mkdirSync(dir, { recursive: true });
  const odd = join(dir, 'k;ey');
  copyFileSync(f.key.privatePath, odd);
  chmodSync(odd, 0o600);
  const line = sshCommandLine(target(), { identityFile: odd, home: f.home });
  assert.ok(line.includes(`-i '`), line);
  const r = await paste(line);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), String(inst.id));
});

test('the demo form, ssh -F <file> <alias>, reaches the host; a file path with a space is quoted', { skip }, async () => {
  const demoHome = join(f.home, 'demo home');
  const writer = new SshConfigWriter({ home: demoHome, origin: 'demo' });
  const alias = await writer.writeEntry(inst, { identityFile: f.key.privatePath });
  const line = sshConfigCommandLine(writer.configPath, alias);
  assert.equal(line, `ssh -F '${writer.configPath}' ${alias}`);
  const r = await paste(line);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), String(inst.id));
  assert.throws(() => sshConfigCommandLine(writer.configPath, '-oProxyCommand=x'), SshValueError);
});
