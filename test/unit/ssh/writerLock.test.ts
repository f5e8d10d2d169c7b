// Writers that race for the managed SSH config: two in one process, two windows (child processes),
// and a lock left by a crashed window. None may lose an entry. (What one writer writes: sshConfigWriter.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, existsSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { inTempDir } from '../../kit/temp';
import { instanceRecord } from '../../kit/fixtures';

const inst = instanceRecord;

/** Runs `fn` with a temporary HOME (removed afterwards). */
const inTempHome = <T>(fn: (home: string) => Promise<T>) => inTempDir('gpu-ssh-', fn);

// Child-process mode: this same bundle, started with these variables, adds entries and exits.
if (process.env.GPU_SSH_CHILD_HOME) {
  const w = new SshConfigWriter({ home: process.env.GPU_SSH_CHILD_HOME, lockTimeoutMs: 20000 });
  const base = Number(process.env.GPU_SSH_CHILD_BASE);
  (async () => {
    for (let i = 0; i < 8; i++) await w.writeEntry(inst(base + i), {});
  })().catch((e: unknown) => {
    // The parent sees the exit code and this message.
    console.error(e);
    process.exitCode = 1;
  });
} else {
  test('concurrent writers in one process (Promise.all) lose no entries', async () => {
    await inTempHome(async (home) => {
      const a = new SshConfigWriter({ home });
      const b = new SshConfigWriter({ home });
      await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => a.writeEntry(inst(200 + i), {})),
        ...Array.from({ length: 10 }, (_, i) => b.writeEntry(inst(300 + i), {})),
      ]);
      const ids = (await a.entries()).map((e) => e.id).sort((x, y) => x - y);
      assert.equal(ids.length, 20);
      assert.deepEqual(ids, [...Array.from({ length: 10 }, (_, i) => 200 + i), ...Array.from({ length: 10 }, (_, i) => 300 + i)]);
      assert.ok(!existsSync(join(a.dir, 'config.lock')), 'lock released');
    });
  });

  test('concurrent writers in two child processes lose no entries', async () => {
    await inTempHome(async (home) => {
      const run = (base: number) =>
        new Promise<number | null>((resolve) => {
          const c = spawn(process.execPath, [__filename], {
            env: { ...process.env, GPU_SSH_CHILD_HOME: home, GPU_SSH_CHILD_BASE: String(base) },
            stdio: 'ignore',
          });
          c.on('exit', resolve);
        });
      assert.deepEqual(await Promise.all([run(500), run(600)]), [0, 0]);
      const ids = (await new SshConfigWriter({ home }).entries()).map((e) => e.id);
      assert.equal(ids.length, 16);
    });
  });

  test('a stale lock left by a crashed window is taken over', async () => {
    await inTempHome(async (home) => {
      const w = new SshConfigWriter({ home, lockTimeoutMs: 2000, lockStaleMs: 1000 });
      mkdirSync(w.dir, { recursive: true, mode: 0o700 });
      const lock = join(w.dir, 'config.lock');
      writeFileSync(lock, '12345 0\n');
      const old = new Date(Date.now() - 60_000);
      utimesSync(lock, old, old);
      const t0 = Date.now();
      await w.writeEntry(inst(1), {});
      assert.ok(Date.now() - t0 < 1000);
      assert.equal((await w.entries()).length, 1);
      // a fresh lock held by someone else times out with an actionable message
      writeFileSync(lock, 'busy\n');
      const w2 = new SshConfigWriter({ home, lockTimeoutMs: 100, lockStaleMs: 60_000 });
      await assert.rejects(w2.writeEntry(inst(2), {}), /Another VS Code window.*Try again/);
    });
  });
}
