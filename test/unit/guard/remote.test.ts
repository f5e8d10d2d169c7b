// The guard over SSH with the real OpenSSH client against the simulator's real SSH server: VS Code
// reads the watchdog's state.json and Keep Running writes its snooze file, which really keeps the
// instance running until the snooze ends. Temporary HOME; never the user's ~/.ssh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { sshGuardRemote, type GuardRemote } from '../../../src/guard/remote';
import { sleep, until } from './harness';
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
    const onstart = composeOnstart('echo ready', resolveGuardPlan({ idleMinutes: 1 })!, { apiUrl: fx.sim.url, dphTotal: 1 }).onstart!;
    const offer = fx.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken && (o.direct_port_count as number) > 0)!;
    const { new_contract: id } = await fx.api.createInstance(offer.id, { image: 'sim/base:1', runtype: 'ssh_direct', label: 'guarded', onstart });
    await fx.ctl.setGpuUtil(id, 90);
    await fx.ctl.finishBoot(id);
    const inst = await fx.api.showInstance(id);
    const alias = await fx.writer.writeEntry(inst, { identityFile: fx.key.privatePath });
    const remote: GuardRemote = sshGuardRemote({
      target: async (x) => (x === id ? { configPath: fx.writer.configPath, alias } : undefined),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: fx.home },
    });
    assert.equal(await remote.readState(id + 1), undefined, 'no entry: nothing to read');

    const busy = await until('the watchdog state over SSH', async () => {
      try {
        const s = (await remote.readState(id))?.state;
        return s?.gpuUtil === 90 ? s : undefined;
      } catch {
        return undefined; // the watchdog has not written its first state yet
      }
    });
    assert.equal(busy!.busyReason, 'GPU at 90 %');
    assert.equal(busy!.idleLimitSeconds, 3);

    const until1h = await remote.snooze(id, 60);
    assert.ok(Math.abs(until1h - (Date.now() / 1000 + 3600)) < 10, `snooze ends in an hour: ${until1h}`);
    await fx.ctl.setGpuUtil(id, 0);
    await sleep(5000);
    assert.equal(fx.sim.state.instances.get(id)?.intended, 'running', 'snoozed: kept although idle');
    const read = await remote.readState(id);
    assert.ok(Math.abs(read!.now - Date.now() / 1000) < 10, 'the instance clock comes with the state');
    assert.match(read!.log ?? '', /started: stop after 3 s idle/, 'and the end of guard.log');
    const snoozed = read?.state;
    assert.match((await remote.readLog(id))!, /started: stop after 3 s idle/, 'guard.log over SSH');
    assert.equal(snoozed?.snoozedUntil, until1h);
    assert.equal(snoozed?.busyReason, 'snoozed');

    await remote.snooze(id, 0);
    await until('stopped by the watchdog once the snooze ended', () => fx.sim.state.instances.get(id)?.intended === 'stopped', 20_000);
  } finally {
    await fx.ctl.runOnstart(false);
  }
});
