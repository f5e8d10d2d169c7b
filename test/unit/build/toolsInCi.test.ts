// A test whose system tool is missing: skipped locally (and named as skipped), failed with the
// install hint in CI. This file runs itself as a child with a PATH where no tool exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needs } from '../tools';

if (process.env.GPU_RENTAL_TOOLS_CHILD) {
  test('needs ssh and openssl', { skip: needs('ssh', 'openssl') }, () => {
    assert.fail('ran without its tools');
  });
} else {
  const child = (ci: boolean) => {
    const empty = mkdtempSync(join(tmpdir(), 'gpu-rental-nopath-'));
    try {
      const env: NodeJS.ProcessEnv = { GPU_RENTAL_TOOLS_CHILD: '1', PATH: empty, HOME: empty, ...(ci ? { CI: 'true' } : {}) };
      return spawnSync(process.execPath, ['--test-reporter=tap', process.argv[1]!], { env, encoding: 'utf8' });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  };

  test('locally a test whose tool is missing is skipped, with the install hint as the reason', () => {
    const r = child(false);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /ok \d+ - needs ssh and openssl # SKIP ssh, openssl are not installed: apt-get install openssh-client openssl/);
    assert.match(r.stdout, /# skipped 1/);
  });

  test('in CI (CI=true) it fails, and the failure says how to install the tool', () => {
    const r = child(true);
    assert.notEqual(r.status, 0, r.stdout);
    assert.doesNotMatch(r.stdout, /# SKIP/);
    assert.match(r.stdout, /not ok \d+ - ssh is installed \(CI\)/);
    assert.match(r.stdout, /not ok \d+ - openssl is installed \(CI\)/);
    assert.match(r.stdout, /apt-get install openssh-client/);
    assert.match(r.stdout, /apt-get install openssl/);
  });
}
