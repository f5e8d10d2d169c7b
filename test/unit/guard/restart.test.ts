// The watchdog across restarts (a container stop SIGKILLs it and keeps its files; the next start
// runs onstart again) and when the service refuses the stop.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWatchdogState } from '../../../src/guard/watchdogState';
import { SHELLS, guardSim, runGuard, sleep, until, type RunOptions } from './harness';
import { holdSshdLock } from './sessions';

const gsim = guardSim();
// Not while another run's scenario matrix holds a session to its fake sshd: these guards would count it.
holdSshdLock('shared');
const { instance, intended } = gsim;
const calls = (id: number) => gsim.c.sim.state.requests.filter((q) => q.path.startsWith(`/api/v0/instances/${id}`));
const bootId = () => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '-';
  }
};

for (const shell of SHELLS) {
  describe(`watchdog restarts under ${shell.name}`, { concurrency: true }, () => {
    const go = (inst: { id: number; key: string }, o: Omit<RunOptions, 'shell'> = {}) => runGuard(gsim.c, inst, { shell: shell.argv, ...o });

    test('SIGKILL leaves guard.pid and an old state; another process gets that pid: the next start still runs and acts', async () => {
      const inst = await instance();
      const first = go(inst, { env: { GPU_GUARD_IDLE_SECONDS: '600' } });
      // A long-lived process whose command line even mentions the script (like the onstart shell that launched it).
      const squatter = spawn('sh', ['-c', `sleep 60; : ${join(first.dir, 'guard.sh')}`], { stdio: 'ignore', detached: true });
      let second: ReturnType<typeof go> | undefined;
      try {
        await until('the first guard reports', () => first.state());
        first.child.kill('SIGKILL');
        await first.exited;
        const gdir = join(first.tmp, 'gpu-rental');
        assert.ok(readFileSync(join(gdir, 'guard.pid'), 'utf8').startsWith(`${first.child.pid} `), 'SIGKILL runs no trap: the pid file stays');
        // After the restart the old pid belongs to someone else (same boot: a container restart).
        writeFileSync(join(gdir, 'guard.pid'), `${squatter.pid} ${bootId()}\n`);
        const old = first.state()!;
        second = go(inst, { dir: first.dir });
        assert.equal(await second.exited, 0, second.log());
        assert.equal(intended(inst.id), 'stopped');
        const s = second.state()!;
        assert.notEqual(s.startedAt, undefined);
        assert.ok((s.updatedAt as number) >= (old.updatedAt as number));
        assert.equal(typeof s.doneAt, 'number');
        assert.match(second.log(), new RegExp(`restarted \\(guard ${squatter.pid} is gone\\)`));
        assert.ok(!second.log().includes('is already running'));
      } finally {
        squatter.kill('SIGKILL');
        await second?.stop();
        await first.stop();
      }
    });

    test('a pid file from another boot (reboot): the guard starts', async () => {
      const inst = await instance();
      const first = go(inst, { env: { GPU_GUARD_IDLE_SECONDS: '600' } });
      let second: ReturnType<typeof go> | undefined;
      try {
        await until('the first guard reports', () => first.state());
        first.child.kill('SIGKILL');
        await first.exited;
        // The same pid is alive again, with this very script on its command line (as a guard of the
        // earlier boot would be), but the boot differs: only the boot id tells them apart.
        const twin = spawn('sh', ['-c', 'sleep 60; :', join(first.dir, 'guard.sh')], { stdio: 'ignore' });
        try {
          writeFileSync(join(first.tmp, 'gpu-rental', 'guard.pid'), `${twin.pid} 00000000-0000-0000-0000-000000000000\n`);
          second = go(inst, { dir: first.dir });
          assert.equal(await second.exited, 0, second.log());
          assert.doesNotMatch(second.log(), /is already running/);
        } finally {
          twin.kill('SIGKILL');
        }
        assert.equal(await second.exited, 0, second.log());
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await second?.stop();
        await first.stop();
      }
    });

    test('a live guard of this boot is not started twice', async () => {
      const inst = await instance();
      const first = go(inst, { env: { GPU_GUARD_IDLE_SECONDS: '600' } });
      let second: ReturnType<typeof go> | undefined;
      try {
        await until('the first guard reports', () => first.state());
        second = go(inst, { dir: first.dir });
        assert.equal(await second.exited, 0);
        assert.match(first.log(), new RegExp(`guard ${first.child.pid} is already running`));
        assert.equal(first.child.exitCode, null, 'the first one keeps watching');
      } finally {
        await second?.stop();
        await first.stop();
      }
    });

    test('a refused stop (200 with success false) is retried with back-off until accepted, then confirmed by a read', async () => {
      const inst = await instance();
      await gsim.c.ctl.fault({
        kind: 'http_error',
        status: 200,
        error: 'rate_limit_exceeded',
        msg: 'slow down',
        path: `/api/v0/instances/${inst.id}/`,
        count: 2,
      });
      const g = go(inst);
      try {
        const refused = (await until('the refusal is recorded', (): Record<string, unknown> | false => {
          const s = g.state();
          return s && s.failures === 1 ? s : false;
        })) as Record<string, unknown>;
        assert.equal(refused.lastError, 'stop refused: rate_limit_exceeded');
        assert.equal(refused.doneAt, null, 'a refused stop is not done');
        assert.equal(typeof refused.nextRetryAt, 'number');
        assert.equal(await g.exited, 0, g.log());
        assert.equal(intended(inst.id), 'stopped');
        assert.match(
          g.log(),
          /stop refused: rate_limit_exceeded; retrying in 1 s[\s\S]*stop refused: rate_limit_exceeded; retrying in 2 s[\s\S]*stop accepted and confirmed/,
        );
        const seq = calls(inst.id).map((q) => q.method);
        assert.deepEqual(seq, ['PUT', 'PUT', 'PUT', 'GET'], 'two refused, one accepted, then the confirming read');
        assert.equal(g.state()!.lastError, null);
      } finally {
        await g.stop();
      }
    });
  });
}

test('the simulator runs onstart again after each start: the guard is back after a stop/start and a reboot, and acts', async () => {
  const { composeOnstart, resolveGuardPlan } = await import('../../../src/guard/plan');
  const plan = resolveGuardPlan(undefined)!;
  const composed = composeOnstart('echo booted >> "$HOME/boots"', plan, { apiUrl: gsim.c.sim.url, dphTotal: 1 });
  await gsim.c.ctl.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: 600 });
  const { instanceHome } = await import('../../../src/sim/sandbox');
  try {
    const r = await gsim.c.call('PUT', `/api/v0/asks/${gsim.freeOffer()}/`, {
      image: 'ubuntu',
      runtype: 'ssh_direct',
      onstart: composed.onstart,
      env: composed.env,
    });
    const id = r.json.new_contract as number;
    await gsim.c.ctl.setGpuUtil(id, 90);
    await gsim.c.ctl.finishBoot(id);
    const home = instanceHome(gsim.c.sim.state, id);
    const state = () => {
      try {
        return readWatchdogState(JSON.parse(readFileSync(join(home, 'tmp', 'gpu-rental', 'state.json'), 'utf8')));
      } catch {
        return undefined;
      }
    };
    const boots = () => readFileSync(join(home, 'boots'), 'utf8').split('\n').filter(Boolean).length;
    const s1 = (await until('the guard reports', () => state()))!;
    // Stop (the container ends: SIGKILL, files stay) and start again: onstart runs again.
    assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })).status, 200);
    await sleep(2500);
    assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${id}/`, { state: 'running' })).status, 200);
    await gsim.c.ctl.finishBoot(id);
    const s2 = (await until('a new guard reports', () => {
      const s = state();
      return s && s.pid !== s1.pid ? s : undefined;
    }))!;
    assert.equal(boots(), 2);
    // A reboot: the container restarts (SIGKILL again), onstart runs again once it is back.
    assert.equal((await gsim.c.call('PUT', `/api/v0/instances/reboot/${id}/`, {})).status, 200);
    await until('a third guard reports', () => {
      const s = state();
      return s && s.pid !== s2.pid && s.pid !== s1.pid ? s : undefined;
    });
    assert.equal(boots(), 3);
    // ...and it acts: the GPU goes idle, the (re-)started guard stops the instance.
    await gsim.c.ctl.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: 2 });
    assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })).status, 200);
    await sleep(2500);
    assert.equal((await gsim.c.call('PUT', `/api/v0/instances/${id}/`, { state: 'running' })).status, 200);
    await gsim.c.ctl.finishBoot(id);
    await until('the fourth guard reports', () => boots() === 4);
    await gsim.c.ctl.setGpuUtil(id, 0);
    await until('stopped by its own guard', () => intended(id) === 'stopped', 20000);
    // The stop answer came; its confirming read follows (before the container ends).
    await until('the guard confirmed with a read', () => gsim.c.sim.state.requests.some((q) => q.path === `/api/v0/instances/${id}/` && q.method === 'GET'));
    await until('and says so in its log', () => /stop accepted and confirmed/.test(readFileSync(join(home, 'tmp', 'gpu-rental', 'guard.log'), 'utf8')));
  } finally {
    await gsim.c.ctl.runOnstart(false);
  }
});
