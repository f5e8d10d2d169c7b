// The demo's promise, end to end: an idle instance with an open SSH session (the real OpenSSH
// client to the simulator's SSH server for that instance) keeps running, and the guard stops it
// once the session closes. The watchdog is the one onstart installs, run by the simulator as a
// container would run it; it finds the session the way it does on a machine (the port SSH is
// published on, from the instance's environment), with no knob for the simulator.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { readWatchdogState } from '../../../src/guard/watchdogState';
import { instanceHome } from '../../../src/sim/sandbox';
import { useSshFixture, type SshFixture } from '../../kit/sshFixture';
import { needs } from '../tools';
import { until } from './harness';
import { holdSshdLock } from './sessions';

let fx: SshFixture;
const taken = new Set<number>();
// Not while another run's scenario matrix holds a session to its fake sshd: this guard would count it.
holdSshdLock('shared');
useSshFixture({ bootSeconds: 60, seed: 11, instances: 0 }, 'gpu-guard-session-', 'guard-session', async (f) => {
  fx = f;
  await f.api.addSshKey(f.key.line);
  // The machine's own port 22 (an sshd of this computer) is not the instance's: the guard's default port goes nowhere.
  await f.ctl.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: 3, GPU_GUARD_SSH_PORT: 1 });
});

describe('an SSH session to the simulator keeps its idle instance running', { concurrency: true, skip: needs('ssh') }, () => {
  // Direct SSH, and a Jupyter-proxy instance whose SSH is on the proxy's next port.
  for (const runtype of ['ssh_direct', 'jupyter_proxy'] as const)
    test(`${runtype}: an open SSH session keeps an idle instance running; once it closes the guard stops it`, async () => {
      let session: ReturnType<typeof spawn> | undefined;
      try {
        const offer = fx.sim.state.offers.find(
          (o) => o.rentable && o.verified && !o.rented && !o.taken && !taken.has(o.id) && (o.direct_port_count as number) > 0,
        )!;
        taken.add(offer.id);
        const { onstart, env } = composeOnstart(undefined, resolveGuardPlan(undefined)!, { apiUrl: fx.sim.url, dphTotal: 1 });
        const { new_contract: id } = await fx.api.createInstance(offer.id, {
          image: 'sim/base:1',
          runtype,
          label: `guard-session-${runtype}`,
          onstart: onstart!,
          env: env!,
        });
        // Busy by its GPU until the guard has seen the session: opening it (SSH entry, handshake, shell)
        // may take longer than the 3 s idle limit on a busy machine, and the session must then still
        // be what keeps it, so the GPU goes idle only once the guard counts the session.
        await fx.ctl.setGpuUtil(id, 100);
        await fx.ctl.finishBoot(id);
        const alias = await fx.writer.writeEntry(await fx.api.showInstance(id), { identityFile: fx.key.privatePath });
        const stateFile = join(instanceHome(fx.sim.state, id), 'tmp', 'gpu-rental', 'state.json');
        const state = () => {
          try {
            return readWatchdogState(JSON.parse(readFileSync(stateFile, 'utf8')));
          } catch {
            return undefined;
          }
        };
        session = spawn(
          'ssh',
          [
            '-F',
            fx.writer.configPath,
            '-o',
            'BatchMode=yes',
            '-o',
            'IdentityAgent=none',
            // Pinning host keys is not what this test is about (a released port comes back with a new key).
            '-o',
            'UserKnownHostsFile=/dev/null',
            '-o',
            'StrictHostKeyChecking=no',
            alias,
            'echo session-open; exec sleep 600',
          ],
          {
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: fx.home },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        session.stdout!.on('data', (d) => (out += String(d)));
        session.stderr!.on('data', (d) => (out += String(d)));
        await until('the session is open', () => out.includes('session-open'), 30_000).catch((e: Error) => assert.fail(`${e.message}: ${out}`));
        await until('the guard counts the session while the GPU keeps it busy', () => (state()?.sshSessions ?? 0) > 0, 30_000);
        assert.equal(state()!.busyReason, 'GPU at 100 %');
        await fx.ctl.setGpuUtil(id, 0);
        const seen = await until('the guard sees the session', () => (/^ssh \d+$/.test(state()?.busyReason ?? '') ? state() : undefined), 30_000).catch(
          (e: Error) => assert.fail(`${e.message}: ${JSON.stringify(state())}; SSH listens on ${String(fx.sim.ssh?.portOf(id))}`),
        );
        // Well past the 3 s idle limit, still kept.
        await until('the guard kept it past its idle limit', () => ((state()?.updatedAt ?? 0) >= seen!.updatedAt + 5 ? true : undefined), 30_000);
        assert.equal(fx.sim.state.instances.get(id)?.intended, 'running');
        assert.match(state()!.busyReason ?? '', /^ssh \d+$/);
        const closed = once(session, 'exit');
        session.kill('SIGTERM');
        await closed;
        await until('stopped by its guard once the session closed', () => fx.sim.state.instances.get(id)?.intended === 'stopped', 30_000);
        const log = () => readFileSync(join(instanceHome(fx.sim.state, id), 'tmp', 'gpu-rental', 'guard.log'), 'utf8');
        await until('its log says so', () => log().includes('stop accepted and confirmed'), 30_000);
        assert.match(log(), /busy \(ssh \d+\)[\s\S]*idle \(GPU 0, SSH 0\)[\s\S]*stop accepted and confirmed/);
      } finally {
        session?.kill('SIGKILL');
      }
    });
});
