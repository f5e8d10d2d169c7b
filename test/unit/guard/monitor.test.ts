import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { Emitter } from '../../../src/core/events';
import { silentLogger } from '../helpers';
import type { KeyValueStore } from '../../../src/core/ports';
import { GUARD_NO_WARN_KEY, GuardMonitor, type GuardWarning } from '../../../src/guard/monitor';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import type { GuardRemote, WatchdogState } from '../../../src/guard/remote';
import { snoozeCommand, READ_STATE_COMMAND } from '../../../src/guard/remote';


class Memory implements KeyValueStore {
  data = new Map<string, unknown>();
  get<T>(k: string) {
    return this.data.get(k) as T | undefined;
  }
  async update(k: string, v: unknown) {
    this.data.set(k, v);
  }
}

const guarded = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30, maxHours: 2 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;

function inst(id: number, o: Partial<Instance> = {}): Instance {
  return { id, label: `box-${id}`, state: 'running', gpu_util: 0, uptime_mins: 10, onstart: guarded, ...o } as Instance;
}

function setup(opts: { instances: Instance[]; remote?: GuardRemote }) {
  let now = 1_000_000_000_000;
  const list = { instances: opts.instances, changed: new Emitter<readonly Instance[]>() };
  const store = { get instances() { return list.instances; }, onDidChange: list.changed.event };
  const warnings: GuardWarning[] = [];
  const state = new Memory();
  const m = new GuardMonitor({ instances: store, remote: opts.remote, defaults: () => ({ enabled: true, idleMinutes: 30, gpuUtilBelow: 5 }), state, log: silentLogger, now: () => now, tickMs: 3_600_000 });
  m.onWarn((w) => warnings.push(w));
  m.update();
  return {
    m,
    warnings,
    state,
    set(instances: Instance[]) {
      list.instances = instances;
      list.changed.fire(instances);
    },
    advance(ms: number) {
      now += ms;
      m.update();
    },
    now: () => now,
  };
}

const MIN = 60_000;

test('from the list alone: idle minutes from gpu_util, a warning 5 min before, at most one per hour, none while busy', () => {
  const h = setup({ instances: [inst(1, { gpu_util: 50 })] });
  try {
    assert.equal(h.m.status(1)!.text, 'guard: stops after 30 idle min');
    h.set([inst(1, { gpu_util: 2 })]);
    h.advance(12 * MIN);
    assert.equal(h.m.status(1)!.text, 'guard: stops after 30 idle min · idle 12 min');
    assert.equal(h.warnings.length, 0);
    h.advance(14 * MIN);
    assert.equal(h.warnings.length, 1);
    assert.deepEqual({ ...h.warnings[0]!, instance: undefined }, { instance: undefined, actAt: h.now() - 26 * MIN + 30 * MIN, action: 'stop', reason: 'idle', idleMinutes: 30 });
    h.advance(10 * MIN);
    assert.equal(h.warnings.length, 1, 'not again within the hour');
    h.set([inst(1, { gpu_util: 40 })]);
    assert.equal(h.m.status(1)!.text, 'guard: stops after 30 idle min');
  } finally {
    h.m.dispose();
  }
});

test('without a watchdog: "no guard", a warning only (action none); Don\'t Warn Again sticks', async () => {
  const h = setup({ instances: [inst(2, { onstart: 'echo mine' })] });
  try {
    h.advance(27 * MIN);
    assert.equal(h.m.status(2)!.text, 'no guard · idle 27 min');
    assert.equal(h.warnings[0]?.action, 'none');
    await h.m.dontWarn(2);
    assert.deepEqual(h.state.get(GUARD_NO_WARN_KEY), [2]);
    h.advance(2 * 60 * MIN);
    assert.equal(h.warnings.length, 1);
    // Keep Running without a watchdog pauses only the warnings.
    const r = await h.m.snooze(2, 60);
    assert.equal(r.via, 'local');
  } finally {
    h.m.dispose();
  }
});

test('with the watchdog state over SSH: its own idle time and act time win; Keep Running writes the snooze', async () => {
  const calls: string[] = [];
  const base = (now: number): WatchdogState => ({
    version: 1, startedAt: now / 1000 - 600, updatedAt: now / 1000, action: 'stop', idleLimitSeconds: 1800,
    gpu: 'ok', gpuUtil: 1, sshSessions: 0, heartbeatAgeSeconds: null, snoozedUntil: null, busyReason: null,
    idleSince: now / 1000 - 28 * 60, actAt: now / 1000 + 2 * 60, capAt: now / 1000 + 3600, capReason: 'maxHours',
    failures: 0, nextRetryAt: null, lastError: null, doneAt: null,
  });
  const remote = base(1_000_000_000_000);
  const fake: GuardRemote = {
    async readState(id) {
      calls.push(`read ${id}`);
      return remote;
    },
    async snooze(id, minutes) {
      calls.push(`snooze ${id} ${minutes}`);
      return 42;
    },
  };
  const h = setup({ instances: [inst(3, { gpu_util: 90 })], remote: fake });
  try {
    await new Promise((r) => setImmediate(r));
    h.advance(0);
    assert.ok(calls.includes('read 3'));
    assert.equal(h.m.status(3)!.text, 'guard: stops after 30 idle min · idle 28 min');
    assert.equal(h.warnings.length, 1, 'the watchdog says it acts in 2 min although the list shows a busy GPU');
    const reads = calls.length;
    h.advance(10_000);
    assert.equal(calls.length, reads, 'not read again before a minute passed');
    const r = await h.m.snooze(3, 60);
    assert.equal(r.via, 'ssh');
    assert.ok(calls.includes('snooze 3 60'));
    assert.match(h.m.status(3)!.text, /snoozed until/);
  } finally {
    h.m.dispose();
  }
});

test('a hard cap (maxHours from the onstart, uptime from the list) warns although the GPU is busy', () => {
  const h = setup({ instances: [inst(4, { gpu_util: 99, uptime_mins: 117 })] });
  try {
    assert.equal(h.warnings.length, 1);
    assert.equal(h.warnings[0]!.reason, 'maxHours');
    assert.ok(Math.abs(h.warnings[0]!.actAt - (h.now() + 3 * MIN)) < 1000);
    assert.match(h.m.status(4)!.details.join('\n'), /Hard cap \(maxHours\): after 2 h running/);
  } finally {
    h.m.dispose();
  }
});

test('the remote commands are fixed text; minutes are checked before they reach a shell', () => {
  assert.equal(READ_STATE_COMMAND, 'cat "${TMPDIR:-/tmp}/gpu-rental"/state.json');
  assert.match(snoozeCommand(60), /\+ 3600 \)\)/);
  for (const bad of [-1, 1.5, NaN, 1e9]) assert.throws(() => snoozeCommand(bad));
});
