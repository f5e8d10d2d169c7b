// The demo's SSH entries live in a private temporary HOME: never in ~/.ssh, reachable with
// `ssh -F`, and gone when the demo ends.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { DemoSshHome, DEMO_DIR_ENV } from '../../../src/ssh/demoHome';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';

test('demo entries: a 0700 temp HOME under GPU_RENTAL_DEMO_DIR, resolved by ssh -F, removed on dispose', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'gpu-demo-parent-'));
  const saved = process.env[DEMO_DIR_ENV];
  process.env[DEMO_DIR_ENV] = join(parent, 'ssh');
  try {
    const demo = new DemoSshHome();
    assert.equal(demo.created, false, 'nothing is created before an entry is written');
    const home = demo.path();
    assert.ok(home.startsWith(join(parent, 'ssh')));
    assert.equal(statSync(home).mode & 0o777, 0o700);
    const w = new SshConfigWriter({ home, origin: 'demo' });
    const alias = await w.writeEntry({ id: 7, state: 'running', actual_status: 'running', label: 'demo box', ssh_host: '127.0.0.1', ssh_port: 42007 }, {});
    assert.equal(w.configPath, demo.configFile());
    assert.equal(w.userConfigPath, join(home, '.ssh', 'config'), 'even the "user config" the writer would ask about is the temp one');
    // The real OpenSSH client resolves the entry from the temp file alone.
    const g = execFileSync('ssh', ['-G', '-F', demo.configFile(), alias], { encoding: 'utf8' });
    assert.match(g, /^hostname 127\.0\.0\.1$/m);
    assert.match(g, /^port 42007$/m);
    assert.ok(g.includes(`userknownhostsfile ${join(home, '.ssh', 'gpu-rental', 'known_hosts')}`), 'known_hosts in the temp HOME too');
    demo.dispose();
    assert.equal(existsSync(home), false, 'the demo left nothing behind');
    assert.equal(demo.created, false);
    const again = demo.path();
    assert.notEqual(again, home, 'a new demo gets a new folder');
    demo.dispose();
  } finally {
    if (saved === undefined) delete process.env[DEMO_DIR_ENV];
    else process.env[DEMO_DIR_ENV] = saved;
    rmSync(parent, { recursive: true, force: true });
  }
});
