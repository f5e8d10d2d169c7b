import { test } from 'node:test';
import { manifest } from '../repoRoot';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { Emitter } from '../../../src/core/events';
import { silentLogger } from '../../kit/log';
import { GuardMonitor } from '../../../src/guard/monitor';
import { type GuardActed, type GuardWarning, type GuardWithdrawal } from '../../../src/core/guardPort';
import { DEFAULT_GUARD, composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import type { GuardRemote, WatchdogState } from '../../../src/guard/remote';
import { snoozeCommand, READ_STATE_COMMAND } from '../../../src/guard/remote';
import { MemoryState } from '../../kit/state';
import { GUARD_NO_WARN_KEY } from '../../../src/core/stateKeys';

const Memory = MemoryState;

const guarded = composeOnstart('echo hi', resolveGuardPlan({ idleMinutes: 30, maxHours: 2 })!, { apiUrl: 'https://console.vast.ai', dphTotal: 1 }).onstart!;

function inst(id: number, o: Partial<Instance> = {}): Instance {
  return { id, label: `box-${id}`, state: 'running', gpu_util: 0, uptime_mins: 10, onstart: guarded, ...o } as Instance;
}

function setup(opts: { instances: Instance[]; remote?: GuardRemote }) {
  let now = 1_000_000_000_000;
  const list = { instances: opts.instances, changed: new Emitter<readonly Instance[]>() };
  const store = {
    get instances() {
      return list.instances;
    },
    onDidChange: list.changed.event,
  };
  const warnings: GuardWarning[] = [];
  const withdrawn: GuardWithdrawal[] = [];
  const acted: GuardActed[] = [];
  const state = new Memory();
  const m = new GuardMonitor({
    instances: store,
    remote: opts.remote,
    defaults: () => ({ enabled: true, idleMinutes: 30, gpuUtilBelow: 5 }),
    state,
    log: silentLogger,
    now: () => now,
    tickMs: 3_600_000,
  });
  m.onWarn((w) => warnings.push(w));
  m.onWithdraw((w) => withdrawn.push(w));
  m.onActed((a) => acted.push(a));
  m.update();
  return {
    m,
    warnings,
    withdrawn,
    acted,
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

test("a guarded instance is never warned from the list's gpu_util (0 at boot): the row says nothing of idle minutes until its guard reports", () => {
  const h = setup({ instances: [inst(1, { gpu_util: 50 })] });
  try {
    assert.equal(h.m.status(1)!.text, 'guard: stops after 30 idle min');
    h.set([inst(1, { gpu_util: 0 })]);
    h.advance(29 * MIN);
    assert.equal(h.m.status(1)!.text, 'guard: stops after 30 idle min', 'no idle minutes guessed from gpu_util');
    assert.equal(h.warnings.length, 0, 'no warning from gpu_util');
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
    version: 1,
    startedAt: now / 1000 - 600,
    updatedAt: now / 1000,
    action: 'stop',
    idleLimitSeconds: 1800,
    gpu: 'ok',
    gpuUtil: 1,
    sshSessions: 0,
    heartbeatAgeSeconds: null,
    snoozedUntil: null,
    busyReason: null,
    idleSince: now / 1000 - 28 * 60,
    actAt: now / 1000 + 2 * 60,
    capAt: now / 1000 + 3600,
    capReason: 'maxHours',
    failures: 0,
    nextRetryAt: null,
    lastError: null,
    doneAt: null,
  });
  const remote = base(1_000_000_000_000);
  const fake: GuardRemote = {
    async readState(id) {
      calls.push(`read ${id}`);
      return { now: remote.updatedAt + 5, state: remote };
    },
    async readLog() {
      return '';
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
    assert.match(h.m.status(3)!.text, /^guard: watching · idle 28 of 30 min · acts at \d\d:\d\d( [AP]M)?$/);
    assert.match(
      h.m.status(3)!.details[0]!,
      /^Idle guard: watching · idle 28 of 30 min · acts at \d\d:\d\d( [AP]M)? · GPU 1 % · 0 SSH sessions · reported just now$/,
    );
    assert.equal(h.warnings.length, 1, 'the watchdog says it acts in 2 min although the list shows a busy GPU');
    const reads = calls.length;
    h.advance(10_000);
    assert.equal(calls.length, reads, 'not read again before a minute passed');
    const r = await h.m.snooze(3, 60);
    assert.equal(r.via, 'ssh');
    assert.ok(calls.includes('snooze 3 60'));
    assert.match(h.m.status(3)!.text, /kept running until/);
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
    // The same cap on later ticks and lists (its act time from each list's uptime): no second warning.
    // Ticks between lists see the same uptime at a later time, so the act time computed moves.
    for (let k = 0; k < 4; k++) h.advance(37_000);
    h.set([inst(4, { gpu_util: 99, uptime_mins: 117 + (4 * 37) / 60 })]);
    assert.equal(h.warnings.length, 1, 'one warning for one cap');
    assert.equal(h.withdrawn.length, 0);
  } finally {
    h.m.dispose();
  }
});

test('the remote commands are fixed text; minutes are checked before they reach a shell', () => {
  assert.equal(
    READ_STATE_COMMAND,
    'date +%s; cat "${TMPDIR:-/tmp}/gpu-rental"/state.json 2>/dev/null; echo; echo @@guard.log@@; tail -n 15 "${TMPDIR:-/tmp}/gpu-rental"/guard.log 2>/dev/null; true',
  );
  assert.match(snoozeCommand(60), /\+ 3600 \)\)/);
  for (const bad of [-1, 1.5, NaN, 1e9]) assert.throws(() => snoozeCommand(bad));
});

function stateAt(now: number, o: Partial<WatchdogState> = {}): WatchdogState {
  const t = now / 1000;
  return {
    version: 1,
    startedAt: t - 600,
    updatedAt: t,
    action: 'stop',
    idleLimitSeconds: 1800,
    gpu: 'ok',
    gpuUtil: 0,
    sshSessions: 1,
    heartbeatAgeSeconds: 120,
    snoozedUntil: null,
    busyReason: null,
    idleSince: t - 180,
    actAt: t - 180 + 1800,
    capAt: null,
    capReason: null,
    failures: 0,
    nextRetryAt: null,
    lastError: null,
    doneAt: null,
    ...o,
  };
}

function remoteOf(read: () => { now: number; state?: WatchdogState } | Error): GuardRemote {
  return {
    async readState() {
      const r = read();
      if (r instanceof Error) throw r;
      return r;
    },
    async readLog() {
      return '';
    },
    async snooze() {
      return 0;
    },
  };
}

async function settle(h: ReturnType<typeof setup>): Promise<void> {
  await new Promise((r) => setImmediate(r));
  h.advance(0);
}

test('a state file left by an earlier boot (72 h old by the instance clock) is "not reporting", not busy; warnings do not promise an action', async () => {
  const T = 1_000_000_000_000;
  const old = stateAt(T - 72 * 3600_000, { busyReason: 'GPU at 93 %', gpuUtil: 93, idleSince: null, actAt: null });
  // Read just now (our clock), but the instance's own clock says the file is 72 h old.
  const h = setup({ instances: [inst(5, { gpu_util: 0 })], remote: remoteOf(() => ({ now: T / 1000, state: old })) });
  try {
    await settle(h);
    const st = h.m.status(5)!;
    assert.match(st.text, /^guard: not reporting since \d\d:\d\d( [AP]M)?$/);
    assert.ok(!st.details.join('\n').includes('93'), 'nothing of the old boot is shown as current');
    // It names a command that exists (it once named one that did not).
    const named = /run "GPU Rental: ([^"]+)"/.exec(st.details.join('\n'))?.[1];
    assert.equal(named, 'Show Idle Guard Log…');
    const pkg = manifest() as { contributes: { commands: Array<{ title: string }> } };
    assert.ok(
      pkg.contributes.commands.some((c) => c.title === named),
      `no command titled "${named}"`,
    );
    h.advance(31 * MIN);
    assert.equal(h.warnings.at(-1)?.action, 'none', 'a guard that does not report will not act: the warning says so');
  } finally {
    h.m.dispose();
  }
});

test('no state on an instance running for minutes: not reporting; a fresh start: starting', async () => {
  const T = 1_000_000_000_000;
  const h = setup({ instances: [inst(6, { uptime_mins: 10 }), inst(7, { uptime_mins: 1 })], remote: remoteOf(() => ({ now: T / 1000 })) });
  try {
    await settle(h);
    assert.equal(h.m.status(6)!.text, 'guard: not reporting');
    assert.match(h.m.status(6)!.details[0]!, /no state written/);
    assert.match(h.m.status(7)!.details.join('\n'), /starting on the instance/);
  } finally {
    h.m.dispose();
  }
});

test('a refused stop in words: "stop refused: rate_limit_exceeded, retrying in 2 min"', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { failures: 2, lastError: 'stop refused: rate_limit_exceeded', nextRetryAt: T / 1000 + 120 });
  const h = setup({ instances: [inst(8)], remote: remoteOf(() => ({ now: T / 1000, state: s })) });
  try {
    await settle(h);
    assert.equal(h.m.status(8)!.text, 'guard: stop refused: rate_limit_exceeded, retrying in 2 min');
    const done = stateAt(T, { doneAt: T / 1000 - 60 });
    const h2 = setup({ instances: [inst(9)], remote: remoteOf(() => ({ now: T / 1000, state: done })) });
    await settle(h2);
    assert.match(h2.m.status(9)!.text, /^guard: stopped the instance at \d\d:\d\d( [AP]M)?$/);
    h2.m.dispose();
  } finally {
    h.m.dispose();
  }
});

test('a failed SSH read: its raw text goes to the log only, the tooltip says it in words', async () => {
  const lines: string[] = [];
  const log = { ...silentLogger, info: (m: string) => lines.push(m), debug: (m: string) => lines.push(m) };
  const list = { instances: [inst(10)], changed: new Emitter<readonly Instance[]>() };
  const m = new GuardMonitor({
    instances: {
      get instances() {
        return list.instances;
      },
      onDidChange: list.changed.event,
    },
    remote: remoteOf(() => new Error('ssh i10 failed: cat: /tmp/gpu-rental/state.json: No such file or directory')),
    defaults: () => DEFAULT_GUARD,
    state: new Memory(),
    log,
    tickMs: 3_600_000,
  });
  try {
    m.update();
    await new Promise((r) => setImmediate(r));
    const text = m.status(10)!.details.join('\n');
    assert.ok(!/cat:|No such file/.test(text), text);
    assert.match(text, /could not be read over SSH yet \(the reason is in the GPU Rental log\)/);
    assert.ok(
      lines.some((l) => l.includes('No such file')),
      'the raw reason is in the log',
    );
  } finally {
    m.dispose();
  }
});

test('Show Instance Details has a guard section: the tooltip lines and the end of guard.log', async () => {
  const { instanceDetailsMarkdown } = await import('../../../src/instances/instanceDetails');
  const T = 1_000_000_000_000;
  const s = stateAt(T);
  const remote: GuardRemote = {
    ...remoteOf(() => ({ now: T / 1000, state: s })),
    async readState() {
      return { now: T / 1000, state: s, log: '2026-11-26T10:00:00Z started: stop after 1800 s idle' };
    },
  };
  const h = setup({ instances: [inst(11)], remote });
  try {
    await settle(h);
    const md = instanceDetailsMarkdown(inst(11), undefined, h.m.status(11));
    assert.match(md, /## Idle guard\n\n- Idle guard\\?: watching · idle 3 of 30 min/);
    assert.match(md, /```text\n2026-11-26T10:00:00Z started: stop after 1800 s idle\n```/);
  } finally {
    h.m.dispose();
  }
});

test('stopped by its guard: the stopped row says so (the reason on the row)', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { idleSince: T / 1000 - 1770, actAt: T / 1000 + 30 });
  const h = setup({ instances: [inst(12)], remote: remoteOf(() => ({ now: T / 1000, state: s })) });
  try {
    await settle(h);
    h.set([inst(12, { state: 'stopped' } as Partial<Instance>)]);
    assert.match(h.m.status(12)!.text, /^stopped by its idle guard at \d\d:\d\d( [AP]M)? \(idle 30 min\)$/);
    // A stop long before the guard was due is not put on the guard.
    const h2 = setup({ instances: [inst(13)], remote: remoteOf(() => ({ now: T / 1000, state: stateAt(T) })) });
    await settle(h2);
    h2.set([inst(13, { state: 'stopped' } as Partial<Instance>)]);
    assert.equal(h2.m.status(13), undefined);
    h2.m.dispose();
  } finally {
    h.m.dispose();
  }
});

test("after Keep Running or the demo's load change the watchdog is read again after its next tick, not a minute later; a limit under a minute is said in seconds", async () => {
  const T = 1_000_000_000_000;
  let reads = 0;
  // A watchdog that looks every second and acts after 15 idle seconds (the VS Code tier's walk).
  const remote = remoteOf(() => {
    reads++;
    return { now: T / 1000, state: stateAt(T, { tickSeconds: 1, idleLimitSeconds: 15, idleSince: T / 1000 - 5, actAt: T / 1000 + 10 }) };
  });
  const h = setup({ instances: [inst(14)], remote });
  try {
    await settle(h);
    assert.equal(reads, 1);
    assert.match(h.m.status(14)!.text, /^guard: watching · idle 5 of 15 s · acts at /);
    assert.equal(h.warnings[0]?.idleMinutes, 0.25, 'the warning carries the limit, not a rounded 0');
    h.advance(3000);
    assert.equal(reads, 1, 'no read within the minute otherwise');
    h.m.readSoon(14);
    h.advance(2000);
    await settle(h);
    assert.equal(reads, 1, 'not before its next tick (1 s) and a margin');
    h.advance(1100);
    await settle(h);
    assert.equal(reads, 2, 'read again about 3 s later');
    await h.m.snooze(14, 60);
    h.advance(3100);
    await settle(h);
    assert.equal(reads, 3, 'Keep Running is followed by a read of what the watchdog made of it');
    // Never later than it would have been: a read due in 1 s stays due in 1 s.
    h.advance(59_000);
    await settle(h);
    h.m.readSoon(14);
    h.advance(1100);
    await settle(h);
    assert.equal(reads, 4, 'readSoon never postpones a read');
  } finally {
    h.m.dispose();
  }
});

/** A remote whose state the test sets between reads. */
function scripted(T: number) {
  let state: WatchdogState | undefined = stateAt(T);
  let clockS = T / 1000;
  const remote = remoteOf(() => ({ now: clockS, ...(state ? { state } : {}) }));
  return {
    remote,
    set(s: WatchdogState | undefined, nowS: number) {
      state = s;
      clockS = nowS;
    },
  };
}

test('warnings follow the guard: one per idle stretch, withdrawn when busy again, a new stretch warns anew within the hour; the warning and the row count the same minutes', async () => {
  const T = 1_000_000_000_000;
  const r = scripted(T);
  // Busy at first: no warning although the list says 0 %.
  r.set(stateAt(T, { busyReason: 'SSH session', idleSince: null, actAt: null }), T / 1000);
  const h = setup({ instances: [inst(20, { gpu_util: 0 })], remote: r.remote });
  try {
    await settle(h);
    assert.equal(h.warnings.length, 0);
    // Idle 27 of 30 min by the guard's own clock: a warning, with the guard's idle-since.
    const t1 = (T + MIN) / 1000;
    r.set(stateAt(T + MIN, { idleSince: t1 - 27 * 60, actAt: t1 + 3 * 60 }), t1);
    h.advance(MIN);
    await settle(h);
    assert.equal(h.warnings.length, 1);
    const w = h.warnings[0]!;
    assert.equal(w.idleSince, h.now() - 27 * MIN);
    assert.ok(h.m.isCurrent(20, w.key));
    const { warningText } = await import('../../../src/guard/vscode/guardWarningText');
    const minutes = /idle (\d+ of 30 min)/.exec(h.m.status(20)!.text)?.[1];
    assert.ok(minutes, h.m.status(20)!.text);
    assert.ok(warningText(w, h.now()).includes(`idle ${minutes}`), warningText(w, h.now()));
    assert.match(warningText(w, h.now()), /at \d\d:\d\d( [AP]M)? \(in about 3 min\)/);
    // Busy again: the warning is withdrawn.
    const t2 = (T + 2 * MIN) / 1000;
    r.set(stateAt(T + 2 * MIN, { busyReason: 'GPU at 80 %', idleSince: null, actAt: null }), t2);
    h.advance(MIN);
    await settle(h);
    assert.deepEqual(
      h.withdrawn.map((x) => [x.instanceId, x.key, x.why]),
      [[20, w.key, 'busy']],
    );
    assert.ok(!h.m.isCurrent(20, w.key));
    // Idle again, 10 minutes later (well within an hour): a new stretch, a new warning.
    const t3 = (T + 12 * MIN) / 1000;
    r.set(stateAt(T + 12 * MIN, { idleSince: t3 - 26 * 60, actAt: t3 + 4 * 60 }), t3);
    h.advance(10 * MIN);
    await settle(h);
    assert.equal(h.warnings.length, 2, 'the real warning is not hidden by an earlier one');
    assert.notEqual(h.warnings[1]!.key, w.key);
    // The same stretch read again: no second warning.
    h.advance(MIN);
    await settle(h);
    assert.equal(h.warnings.length, 2);
  } finally {
    h.m.dispose();
  }
});

test('after the guard acts: one notice (before/after records, why, when), the warning withdrawn as acted; a stop by hand is not put on the guard', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { idleSince: T / 1000 - 1770, actAt: T / 1000 + 30 });
  const h = setup({ instances: [inst(21, { dph_total: 0.45 })], remote: remoteOf(() => ({ now: T / 1000, state: s })) });
  try {
    await settle(h);
    assert.equal(h.warnings.length, 1);
    const stopped = inst(21, { state: 'stopped', dph_total: 0.45 } as Partial<Instance>);
    h.set([stopped]);
    assert.equal(h.acted.length, 1);
    const a = h.acted[0]!;
    assert.equal(a.action, 'stop');
    assert.equal(a.reason, 'idle');
    assert.equal(a.before.state, 'running');
    assert.equal(a.after, stopped);
    assert.equal(a.idleLimitSeconds, 1800);
    assert.deepEqual(
      h.withdrawn.map((x) => x.why),
      ['acted'],
    );
    h.advance(MIN);
    h.set([stopped]);
    assert.equal(h.acted.length, 1, 'told once');
    const { actedText } = await import('../../../src/guard/vscode/guardWarningText');
    assert.match(
      actedText({ ...a, after: { ...stopped, instance: { totalHour: 0.01 } } as Instance }),
      /^The idle guard stopped box-21 at \d\d:\d\d( [AP]M)?: it was idle for 30 min\. That saves \$0\.44\/h \(its disk still bills \$0\.010\/h until you destroy it\)\.$/,
    );
    // Stopped by hand long before the guard was due: no notice.
    const h2 = setup({ instances: [inst(22)], remote: remoteOf(() => ({ now: T / 1000, state: stateAt(T) })) });
    await settle(h2);
    h2.set([inst(22, { state: 'stopped' } as Partial<Instance>)]);
    assert.equal(h2.acted.length, 0);
    h2.m.dispose();
  } finally {
    h.m.dispose();
  }
});

test('a destroying guard: the instance leaves the list when it was due, and the notice says destroyed', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { action: 'destroy', idleSince: T / 1000 - 1790, actAt: T / 1000 + 10 });
  const h = setup({ instances: [inst(23)], remote: remoteOf(() => ({ now: T / 1000, state: s })) });
  try {
    await settle(h);
    h.set([]);
    assert.equal(h.acted.length, 1);
    assert.equal(h.acted[0]!.action, 'destroy');
    assert.equal(h.acted[0]!.after, undefined);
    // A stopping guard's instance missing from one list is no act of the guard.
    const h2 = setup({
      instances: [inst(26)],
      remote: remoteOf(() => ({ now: T / 1000, state: stateAt(T, { idleSince: T / 1000 - 1790, actAt: T / 1000 + 10 }) })),
    });
    await settle(h2);
    h2.set([]);
    assert.equal(h2.acted.length, 0);
    h2.m.dispose();
  } finally {
    h.m.dispose();
  }
});

test('Keep Running withdraws the warning (snoozed); the guard log of a stopped instance is what was last read', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { idleSince: T / 1000 - 1700, actAt: T / 1000 + 100 });
  const remote: GuardRemote = {
    ...remoteOf(() => ({ now: T / 1000, state: s })),
    async readState() {
      return { now: T / 1000, state: s, log: 'idle (GPU 0, SSH 0)' };
    },
  };
  const h = setup({ instances: [inst(24)], remote });
  try {
    await settle(h);
    assert.equal(h.warnings.length, 1);
    await h.m.snooze(24, 60);
    assert.deepEqual(
      h.withdrawn.map((x) => x.why),
      ['snoozed'],
    );
    h.set([inst(24, { state: 'stopped' } as Partial<Instance>)]);
    assert.equal(h.m.lastLog(24), 'idle (GPU 0, SSH 0)');
  } finally {
    h.m.dispose();
  }
});

test('a Keep Running that cannot reach the machine fails at once, and the words say when the guard still acts and what to do', async () => {
  const T = 1_000_000_000_000;
  const s = stateAt(T, { idleSince: T / 1000 - 1700, actAt: T / 1000 + 100 });
  const remote: GuardRemote = {
    ...remoteOf(() => ({ now: T / 1000, state: s })),
    async snooze() {
      throw new Error('ssh gpu-box-25 failed: Host key verification failed.');
    },
  };
  const h = setup({ instances: [inst(25)], remote });
  try {
    await settle(h);
    await assert.rejects(h.m.snooze(25, 60), /Host key verification failed/);
    const planned = h.m.plannedAct(25);
    assert.deepEqual(planned, { at: h.now() + 100_000, action: 'stop' });
    assert.equal(h.warnings.length, 1, 'the warning still holds: nothing was snoozed');
    assert.ok(h.m.isCurrent(25, h.warnings[0]!.key));
    const { snoozeFailedText } = await import('../../../src/guard/vscode/guardWarningText');
    const text = snoozeFailedText('box-25', 'ssh gpu-box-25 failed: Host key verification failed.', planned);
    assert.match(
      text,
      /^Keep Running could not reach box-25: .*Host key verification failed\. The idle guard will still stop it at \d\d:\d\d( [AP]M)?\. To keep it: open a terminal on it/,
    );
  } finally {
    h.m.dispose();
  }
});
