// The guard over SSH with the real OpenSSH client against the simulator's real SSH server: VS Code
// reads the watchdog's state.json and Keep Running writes its snooze file, which really keeps the
// instance running until the snooze ends. Temporary HOME; never the user's ~/.ssh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { sshGuardRemote, type GuardRemote } from '../../../src/guard/remote';
import { until } from './harness';
import { needs } from '../tools';
import { useSshFixture, type SshFixture } from '../../kit/sshFixture';

const skip = needs('ssh');

let fx!: SshFixture;
useSshFixture({ bootSeconds: 1, seed: 3 }, 'gpu-rental-guard-ssh-', 'gpu-rental-guard-test', async (f) => {
  fx = f;
  await fx.api.addSshKey(fx.key.line);
});

test('state over SSH, Keep Running (snooze file over SSH) keeps an idle instance, ending the snooze lets the watchdog stop it', { skip }, async () => {
  await fx.ctl.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: 3 });
  try {
    const { onstart, env } = composeOnstart('echo ready', resolveGuardPlan({ idleMinutes: 1 })!, { apiUrl: fx.sim.url, dphTotal: 1 });
    const offer = fx.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken && (o.direct_port_count as number) > 0)!;
    const { new_contract: id } = await fx.api.createInstance(offer.id, {
      image: 'sim/base:1',
      runtype: 'ssh_direct',
      label: 'guarded',
      onstart: onstart!,
      env: env!,
    });
    await fx.ctl.setGpuUtil(id, 90);
    await fx.ctl.finishBoot(id);
    const inst = await fx.api.showInstance(id);
    const alias = await fx.writer.writeEntry(inst, { identityFile: fx.key.privatePath });
    const remote: GuardRemote = sshGuardRemote({
      target: async (x) => (x === id ? { configPath: fx.writer.configPath, alias } : undefined),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: fx.home },
    });
    assert.equal(await remote.readState(id + 1), undefined, 'no entry: nothing to read');

    // Every wait is for an event (a state the watchdog wrote, a stop), bounded generously: a busy
    // machine makes it slower, never wrong. Times are checked against what was read around the call.
    const busy = await until(
      'the watchdog state over SSH',
      async () => {
        try {
          const s = (await remote.readState(id))?.state;
          return s?.gpuUtil === 90 ? s : undefined;
        } catch {
          return undefined; // the watchdog has not written its first state yet
        }
      },
      60_000,
    );
    assert.equal(busy!.busyReason, 'GPU at 90 %');
    assert.equal(busy!.idleLimitSeconds, 3);

    const beforeSnooze = Math.floor(Date.now() / 1000);
    const until1h = await remote.snooze(id, 60);
    const afterSnooze = Math.ceil(Date.now() / 1000);
    assert.ok(until1h >= beforeSnooze + 3600 - 2 && until1h <= afterSnooze + 3600 + 2, `snooze ends in an hour: ${until1h}`);
    const idleFrom = Math.ceil(Date.now() / 1000);
    await fx.ctl.setGpuUtil(id, 0);
    // The watchdog has seen the GPU idle for longer than its 3 s limit while snoozed: without the
    // snooze it would have stopped the instance by now.
    const beforeRead = Math.floor(Date.now() / 1000);
    const snoozedLong = await until(
      'an idle state past the idle limit while snoozed',
      async () => {
        try {
          const r = await remote.readState(id);
          const s = r?.state;
          return s && s.gpuUtil === 0 && s.busyReason === 'snoozed' && s.updatedAt >= idleFrom + 3 + 2 ? r : undefined;
        } catch {
          return undefined;
        }
      },
      60_000,
    );
    const afterRead = Math.ceil(Date.now() / 1000);
    assert.equal(fx.sim.state.instances.get(id)?.intended, 'running', 'snoozed: kept although idle');
    assert.ok(snoozedLong.now >= beforeRead - 2 && snoozedLong.now <= afterRead + 2, 'the instance clock comes with the state');
    const read = await remote.readState(id);
    assert.match(read!.log ?? '', /started: stop after 3 s idle/, 'and the end of guard.log');
    const snoozed = read?.state;
    assert.match((await remote.readLog(id))!, /started: stop after 3 s idle/, 'guard.log over SSH');
    assert.equal(snoozed?.snoozedUntil, until1h);
    assert.equal(snoozed?.busyReason, 'snoozed');

    await remote.snooze(id, 0);
    await until('stopped by the watchdog once the snooze ended', () => fx.sim.state.instances.get(id)?.intended === 'stopped', 60_000);
  } finally {
    await fx.ctl.runOnstart(false);
  }
});
