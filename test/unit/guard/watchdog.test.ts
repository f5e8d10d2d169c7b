import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_PARTS, WATCHDOG_SCRIPT, minifiedWatchdog } from '../../../src/guard/plan';
import { WatchdogStateSchema } from '../../../src/guard/watchdogState';
import * as z from 'zod/mini';
import { SHELLS, guardSim, runGuard, sleep, until, type RunOptions } from './harness';
import { needs, type Tool } from '../tools';
import { holdSshdLock, tcpServer } from './sessions';

const gsim = guardSim();
// Not while another run's scenario matrix holds a session to its fake sshd: these guards would count it.
holdSshdLock('shared');
const { instance, intended } = gsim;
const guardCalls = (id: number) => gsim.c.sim.state.requests.filter((q) => q.path.startsWith(`/api/v0/instances/${id}`) && q.method !== 'GET');

test('shellcheck passes on the watchdog (POSIX sh)', { skip: needs('shellcheck') }, () => {
  const r = spawnSync('shellcheck', ['-s', 'sh', '-'], { input: WATCHDOG_SCRIPT, encoding: 'utf8' });
  assert.equal(r.error, undefined, 'shellcheck is not installed (apt-get install shellcheck; .ci/run does)');
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // What onstart ships (parts dropped, variables renamed) is checked too, at warning level.
  for (const parts of [[], ALL_PARTS]) {
    const m = spawnSync('shellcheck', ['-s', 'sh', '-S', 'warning', '-'], { input: minifiedWatchdog(WATCHDOG_SCRIPT, parts), encoding: 'utf8' });
    assert.equal(m.status, 0, m.stdout + m.stderr);
  }
});

for (const shell of SHELLS) {
  describe(`watchdog under ${shell.name}`, { concurrency: true, skip: needs(shell.argv[0] as Tool) }, () => {
    const go = (inst: { id: number; key: string }, o: Omit<RunOptions, 'shell'> = {}) => runGuard(gsim.c, inst, { shell: shell.argv, ...o });

    test('idle → stopped through the API with the instance key; state and log say so', async () => {
      const inst = await instance();
      const g = go(inst);
      try {
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
        const calls = guardCalls(inst.id);
        assert.deepEqual(
          calls.map((q) => [q.method, q.status]),
          [['PUT', 200]],
        );
        assert.ok(
          gsim.c.sim.state.requests.some((q) => q.method === 'GET' && q.path === `/api/v0/instances/${inst.id}/`),
          'confirmed by a read of its own instance',
        );
        const s = g.state()!;
        assert.ok(z.safeParse(WatchdogStateSchema, s).success, `VS Code reads this state: ${JSON.stringify(s)}`);
        assert.equal(s.action, 'stop');
        assert.equal(s.gpu, 'ok');
        assert.equal(s.gpuUtil, 0);
        assert.equal(typeof s.doneAt, 'number');
        assert.equal(s.lastError, null);
        assert.match(g.log(), /idle \(GPU 0, SSH 0\)[\s\S]*stop accepted and confirmed/);
        assert.ok(!g.log().includes(inst.key), 'the instance key must not reach the log');
      } finally {
        await g.stop();
      }
    });

    test('action destroy → destroyed with the instance key', async () => {
      const inst = await instance();
      const g = go(inst, { env: { GPU_GUARD_ACTION: 'destroy' } });
      try {
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'gone');
        assert.deepEqual(
          guardCalls(inst.id).map((q) => [q.method, q.status]),
          [['DELETE', 200]],
        );
      } finally {
        await g.stop();
      }
    });

    test('busy GPU (the busiest of several counts) → kept; idle again → stopped', async () => {
      const inst = await instance();
      const g = go(inst, { gpu: [0, 37] });
      try {
        await sleep(4500);
        assert.equal(intended(inst.id), 'running');
        const s = g.state()!;
        assert.equal(s.gpuUtil, 37);
        assert.equal(s.busyReason, 'GPU at 37 %');
        assert.equal(s.idleSince, null);
        g.setGpu([4, 3]);
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await g.stop();
      }
    });

    test('SSH sessions are counted from /proc/net/tcp on the port sshd listens on: kept (unless keepWhileSsh is off)', async () => {
      const inst = await instance();
      const inst2 = await instance();
      const srv = await tcpServer();
      const held = await srv.connect();
      const g = go(inst, { env: { GPU_GUARD_SSH_PORT: String(srv.port) } });
      const g2 = go(inst2, { env: { GPU_GUARD_SSH_PORT: String(srv.port), GPU_GUARD_KEEP_WHILE_SSH: '0' } });
      try {
        assert.equal(await g2.exited, 0);
        assert.equal(intended(inst2.id), 'stopped');
        await until('the session is seen on two ticks', () => g.state()?.busyReason === 'ssh 1');
        assert.equal(intended(inst.id), 'running');
        assert.equal(g.state()!.sshSessions, 1);
        assert.match(g.log(), /busy \(ssh 1\)/);
        held.destroy();
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        held.destroy();
        await srv.close();
        await g.stop();
        await g2.stop();
      }
    });

    test('heartbeat → kept while fresh', async () => {
      const inst = await instance();
      const g = go(inst, { env: { GPU_GUARD_HEARTBEAT_SECONDS: '3' } });
      const hb = join(g.tmp, 'gpu-rental', 'busy');
      mkdirSync(join(g.tmp, 'gpu-rental'), { recursive: true });
      try {
        // Longer than the 2 s idle limit, and until a tick saw it (ticks are slow on a busy machine).
        const t0 = Date.now();
        while (Date.now() - t0 < 4500 || g.state()?.busyReason !== 'heartbeat') {
          writeFileSync(hb, '');
          await sleep(500);
          if (Date.now() - t0 > 30_000) break;
        }
        assert.equal(intended(inst.id), 'running');
        assert.equal(g.state()!.busyReason, 'heartbeat');
        // A stale heartbeat no longer counts.
        const old = Date.now() / 1000 - 60;
        utimesSync(hb, old, old);
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await g.stop();
      }
    });

    test('snooze → kept until it ends', async () => {
      const inst = await instance();
      const g = go(inst);
      mkdirSync(join(g.tmp, 'gpu-rental'), { recursive: true });
      const until5 = Math.floor(Date.now() / 1000) + 8;
      writeFileSync(join(g.tmp, 'gpu-rental', 'snooze-until'), `${until5}\n`);
      try {
        await sleep(3500);
        await until('a tick saw the snooze', () => g.state()?.snoozedUntil === until5);
        assert.equal(intended(inst.id), 'running');
        assert.equal(g.state()!.snoozedUntil, until5);
        assert.equal(await g.exited, 0);
        assert.ok(Date.now() / 1000 >= until5, 'stopped only after the snooze ended');
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await g.stop();
      }
    });

    test('maxHours cap → stopped although the GPU is busy', async () => {
      const inst = await instance();
      const g = go(inst, { gpu: 99, env: { GPU_GUARD_CAP_SECONDS: '3', GPU_GUARD_CAP_WHY: 'maxHours' } });
      try {
        assert.equal(await g.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
        const s = g.state()!;
        assert.equal(s.capReason, 'maxHours');
        assert.equal(s.busyReason, 'GPU at 99 %');
        assert.match(g.log(), /stop now \(maxHours\)/);
      } finally {
        await g.stop();
      }
    });

    test('API unreachable → retried with back-off, logged, no crash; acts once it answers', async () => {
      const inst = await instance();
      // 503 for the first calls, then the service answers.
      await gsim.c.ctl.fault({ kind: 'http_error', status: 503, path: `/api/v0/instances/${inst.id}/`, count: 2 });
      const dead = go(inst, { env: { GPU_GUARD_API: 'http://127.0.0.1:9' } });
      const flaky = go(inst);
      try {
        // Waits for the events, not for time: a busy machine only makes the ticks slower.
        const s = (await until('two failed attempts', () => ((dead.state()?.failures ?? 0) >= 2 ? dead.state() : undefined), 60_000))!;
        assert.equal(dead.child.exitCode, null, 'still running');
        assert.ok(z.safeParse(WatchdogStateSchema, s).success, JSON.stringify(s));
        assert.ok((s.nextRetryAt as number) > s.updatedAt, 'back-off: the next attempt is scheduled later, not a tight loop');
        assert.equal(typeof s.nextRetryAt, 'number');
        assert.match(String(s.lastError), /stop failed \(HTTP 0\)/, JSON.stringify(s));
        assert.match(dead.log(), /retrying in 1 s[\s\S]*retrying in 2 s/, dead.log());
        assert.equal(await flaky.exited, 0, flaky.log());
        assert.match(flaky.log(), /stop failed \(HTTP 503\)[\s\S]*stop accepted/, flaky.log());
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await dead.stop();
        await flaky.stop();
      }
    });

    test('no nvidia-smi on a machine rented without GPUs (GPU_GUARD_GPUS=0) → judged by the other signals', async () => {
      const inst = await instance();
      const g = go(inst, { noNvidia: true, env: { GPU_GUARD_GPUS: '0' } });
      try {
        assert.equal(await g.exited, 0);
        assert.equal(g.state()!.gpu, 'none');
        assert.equal(g.state()!.gpuUtil, null);
        assert.equal(g.state()!.gpuProblem, null);
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await g.stop();
      }
    });

    test('without curl: its state says "cannot act: no curl" at once, it never judges idle, a cap still tries and says why', async () => {
      const inst = await instance();
      const g = go(inst, { without: ['curl'], env: { GPU_GUARD_CAP_SECONDS: '3' } });
      try {
        await until('the first state', () => g.state());
        assert.equal(g.state()!.cannotAct, 'cannot act: no curl', 'in the very first state it writes');
        await until('the failure is recorded', () => g.state()?.failures === 1);
        assert.match(String(g.state()!.busyReason), /cannot judge \(no curl\)/);
        assert.match(String(g.state()!.lastError), /stop failed \(HTTP 0\) .*curl: not found/);
        assert.equal(g.child.exitCode, null);
        assert.equal(intended(inst.id), 'running');
      } finally {
        await g.stop();
      }
    });
  });
}

test('the instance key reads and acts on its own instance only', async () => {
  const a = await instance();
  const b = await instance();
  assert.equal((await gsim.c.call('GET', `/api/v0/instances/${a.id}/`, undefined, a.key)).status, 200);
  for (const [m, body] of [
    ['GET', undefined],
    ['PUT', { state: 'stopped' }],
    ['DELETE', undefined],
  ] as const) {
    const r = await gsim.c.call(m, `/api/v0/instances/${b.id}/`, body, a.key);
    assert.equal(r.status, 403, `${m} on another instance`);
  }
  assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${a.id}/`, { label: 'x' }, a.key)).status, 403, 'no rename');
  assert.equal((await gsim.c.call('GET', '/api/v0/instances/', undefined, a.key)).status, 403, 'no list');
  assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${a.id}/`, { state: 'stopped' }, a.key)).status, 200);
  assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${a.id}/`, { state: 'running' }, a.key)).status, 200);
  assert.equal((await gsim.c.call('DELETE', `/api/v0/instances/${a.id}/`, undefined, a.key)).status, 200);
  // today era: the live service answers a bad key on instance paths with 404 auth_error
  const dead = await gsim.c.call('GET', `/api/v0/instances/${b.id}/`, undefined, a.key);
  assert.deepEqual([dead.status, dead.json.error], [404, 'auth_error'], 'a destroyed instance key is no key');
});
