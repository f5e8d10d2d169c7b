// Show Idle Guard Log's read, with the real OpenSSH client against the simulator's real SSH
// server (the guard's one remote, as the state read uses it): the watchdog's own log, printable
// and with secrets masked; no log yet; no guard; no SSH entry; not reachable; not running.
// Temporary HOME; never the user's ~/.ssh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { sshGuardRemote, type GuardRemote } from '../../../src/guard/remote';
import { guardLogDocument, guardLogProblem, readGuardLog } from '../../../src/guard/guardLog';
import { until } from './harness';
import { needs } from '../tools';
import { startSshFixture, type SshFixture } from '../../kit/sshFixture';

const skip = needs('ssh');
let f: SshFixture;
/** Instances with an SSH entry here, by id. */
const aliases = new Map<number, string>();
let remote: GuardRemote;

before(async () => {
  f = await startSshFixture({ bootSeconds: 1, seed: 5 }, 'gpu-rental-guard-log-', 'gpu-rental-guard-log-test');
  await f.api.addSshKey(f.key.line);
  remote = sshGuardRemote({
    target: async (id) => (aliases.has(id) ? { configPath: f.writer.configPath, alias: aliases.get(id)! } : undefined),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: f.home },
    secrets: () => ['sim-api-key'],
  });
});
after(() => f?.close());

/** A running instance (with the guard's onstart unless `guard` is false) and, unless `entry` is false, its SSH entry here. */
async function running(label: string, { guard = true, entry = true } = {}): Promise<Instance> {
  const composed = guard ? composeOnstart('echo ready', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: f.sim.url, dphTotal: 1 }) : undefined;
  const onstart = composed?.onstart;
  const offer = f.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken && (o.direct_port_count as number) > 0)!;
  const { new_contract: id } = await f.api.createInstance(offer.id, {
    image: 'sim/base:1',
    runtype: 'ssh_direct',
    label,
    ...(onstart ? { onstart, env: composed!.env! } : {}),
  });
  await f.ctl.finishBoot(id);
  const inst = await f.api.showInstance(id);
  if (entry) aliases.set(id, await f.writer.writeEntry(inst, { identityFile: f.key.privatePath }));
  return inst;
}

test('guard log over SSH: the watchdog log (printable, secrets masked); no log yet; no guard; no entry; unreachable; not running', { skip }, async () => {
  // No watchdog has run on it yet (onstart not run): no log.
  const quiet = await running('quiet');
  assert.deepEqual(await readGuardLog(remote, quiet), { kind: 'empty' });
  assert.match(guardLogProblem('quiet', { kind: 'empty' }), /has written no log yet/);

  await f.ctl.runOnstart(true, { GPU_GUARD_TICK: 1 });
  try {
    const guarded = await running('guarded');
    const first = await until('the watchdog writing its log', async () => {
      const r = await readGuardLog(remote, guarded);
      return r.kind === 'log' ? r : undefined;
    });
    assert.match(first.text, /started: stop after 1800 s idle/);
    assert.equal(first.earlier, undefined);

    // What a hostile or careless line would carry: the API key, an assignment, a token, terminal escapes.
    const home = await f.ctl.instanceHome(guarded.id);
    appendFileSync(
      join(home, 'tmp', 'gpu-rental', 'guard.log'),
      'curl: Authorization: Bearer sim-api-key failed\nCONTAINER_API_KEY=0123456789abcdef0123\n\x1b[31mred\x1b[0m hf_abcdefghijklmnopqrstuvwxyz\r\n',
    );
    const r = await readGuardLog(remote, guarded);
    assert.equal(r.kind, 'log');
    const text = r.kind === 'log' ? r.text : '';
    assert.ok(!text.includes('sim-api-key') && !text.includes('0123456789abcdef0123') && !text.includes('hf_abcdef'), text);
    assert.match(text, /CONTAINER_API_KEY=\*\*\*/);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f]/.test(text), 'no control characters reach the document');
    assert.match(
      guardLogDocument('guarded', guarded.id, { text }, new Date()),
      /^Idle guard log of guarded \(#\d+\)\nThe last 200 lines of \$TMPDIR\/gpu-rental\/guard\.log, read over SSH at .+\. Secrets are masked\.\n/,
    );

    // No guard on it: nothing to read (and no SSH needed).
    assert.deepEqual(await readGuardLog(remote, await running('plain', { guard: false })), { kind: 'noGuard' });
    // No SSH entry on this machine.
    const noEntry = await running('no-entry', { entry: false });
    assert.deepEqual(await readGuardLog(remote, noEntry), { kind: 'noEntry' });
    assert.match(guardLogProblem('no-entry', { kind: 'noEntry' }), /no SSH entry for it yet\. Connect once/);

    // Stopped behind the list's back: its SSH server is gone, so ssh fails, and says so.
    await f.api.setInstanceState(guarded.id, 'stopped');
    await until('its SSH server closing', () => f.sim.state.instances.get(guarded.id)?.intended === 'stopped');
    const gone = await until('ssh failing', async () => {
      const x = await readGuardLog(remote, guarded);
      return x.kind === 'unreachable' ? x : undefined;
    });
    assert.match(gone.reason, /^ssh \S+ failed: /);
    assert.match(guardLogProblem('guarded', gone), /^Could not reach guarded over SSH to read its guard log: ssh .* failed: .+\. Check that the instance runs/);

    // Not running: the lines read while it ran, or why there are none.
    const stopped = { ...guarded, state: 'stopped' } as Instance;
    assert.deepEqual(await readGuardLog(remote, stopped, 'earlier line'), { kind: 'log', text: 'earlier line', earlier: true });
    assert.deepEqual(await readGuardLog(remote, stopped), { kind: 'notRunning' });
    assert.match(
      guardLogDocument('guarded', guarded.id, { text: 'x', earlier: true }, new Date()),
      /\nThe last lines read while it ran \(it is not running now/,
    );
  } finally {
    await f.ctl.runOnstart(false);
  }
});
