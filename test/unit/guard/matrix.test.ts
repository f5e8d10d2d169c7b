// The scenario matrix: every published cell (matrixCells.ts) run with the real watchdog, as
// onstart ships it, under dash and busybox sh, against the simulator, with fake nvidia-smi and
// real sessions (TCP connections, a process named sshd, a Jupyter REST API, processes). Each cell
// ends as "stops" (the instance was stopped through the API), "keeps running" (busy past the idle
// limit) or "cannot judge" (kept running, its state says why). docs/idle-guard.md carries the
// table rendered from the same rows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHELLS, guardSim, runGuard, sleep, until, type GuardRun, type RunOptions } from './harness';
import { CELLS, MATRIX_END, MATRIX_START, matrixTable, type Cell, type Outcome } from './matrixCells';
import { fakeJupyter, fakeSshd, holdSshdLock, processWith, tcpServer } from './sessions';
import { needs, type Tool } from '../tools';
import { repoRoot } from '../repoRoot';

const gsim = guardSim();
// One matrix at a time on this computer: its fake sshd's sessions would be every other run's too.
holdSshdLock('exclusive');
const IDLE = 2;

type Setup = () => Promise<{
  opts: Omit<RunOptions, 'shell'>;
  before?: (g: GuardRun) => void;
  check?: (g: GuardRun) => void | Promise<void>;
  end?: () => Promise<void> | void;
}>;

const future = (g: GuardRun, name: string, offsetS: number) => {
  mkdirSync(join(g.tmp, 'gpu-rental'), { recursive: true });
  const f = join(g.tmp, 'gpu-rental', name);
  writeFileSync(f, name === 'snooze-until' ? `${Math.floor(Date.now() / 1000) + offsetS}\n` : '');
  const t = Date.now() / 1000 + offsetS;
  if (name !== 'snooze-until') utimesSync(f, t, t);
};

const SETUPS: Record<(typeof CELLS)[number]['situation'], Setup> = {
  'the busiest GPU exactly at the threshold (5 %)': async () => ({ opts: { gpu: [0, 5] } }),
  'every GPU below the threshold (4 %)': async () => ({ opts: { gpu: [4, 1] } }),
  'nvidia-smi missing on a machine rented with GPUs': async () => ({
    opts: { noNvidia: true },
    check: (g) => assert.equal(g.state()!.gpuProblem, 'cannot see the GPU (nvidia-smi missing)'),
  }),
  'nvidia-smi failing (an error, no number)': async () => ({ opts: { smi: 'failing' }, check: (g) => assert.equal(g.state()!.gpu, 'failing') }),
  'nvidia-smi hanging (killed after its time limit)': async () => ({
    opts: { smi: 'hanging', env: { GPU_GUARD_SMI_SECONDS: '1' } },
    check: (g) => assert.equal(g.state()!.gpu, 'hanging'),
  }),
  'no nvidia-smi on a machine rented without GPUs': async () => ({ opts: { noNvidia: true, env: { GPU_GUARD_GPUS: '0' } } }),
  'an open connection to sshd on port 22': async () => {
    // Port 22 needs root: a server on a free port stands in, given as the guard's sshd port.
    const srv = await tcpServer();
    const c = await srv.connect();
    return {
      opts: { env: { GPU_GUARD_SSH_PORT: String(srv.port) } },
      check: (g) => assert.equal(g.state()!.busyReason, 'ssh 1'),
      end: () => (c.destroy(), srv.close()),
    };
  },
  'an open connection to an sshd listening on another port': async () => {
    const sshd = await fakeSshd();
    const c = await sshd.connect();
    // Found from /proc (the guard's fallback port is one nothing listens on); both shells' cells run at once: 1 or 2.
    return { opts: {}, check: (g) => assert.match(String(g.state()!.busyReason), /^ssh [12]$/), end: () => (c.destroy(), sshd.stop()) };
  },
  'sshd listening, no connection': async () => {
    const sshd = await fakeSshd();
    return { opts: {}, end: () => sshd.stop() };
  },
  'an open connection with keepWhileSsh false': async () => {
    const srv = await tcpServer();
    const c = await srv.connect();
    return { opts: { env: { GPU_GUARD_SSH_PORT: String(srv.port), GPU_GUARD_KEEP_WHILE_SSH: '0' } }, end: () => (c.destroy(), srv.close()) };
  },
  'a kernel running code (Jupyter REST API, its token)': async () => {
    const j = await fakeJupyter('tok-matrix-1');
    j.setBusy(true);
    return {
      opts: { env: { GPU_GUARD_JUPYTER_PORT: String(j.port), JUPYTER_TOKEN: 'tok-matrix-1' } },
      check: async (g) => {
        // Read with its token once the test process answers: on a loaded machine a slow answer reads "not answering" (busy too).
        await until('the kernel read as busy', () => g.state()?.busyReason === 'jupyter kernel busy', 60_000);
        assert.ok(j.authorised() > 0, 'read with its token');
        assert.ok(!g.log().includes('tok-matrix-1'), 'the token is never logged');
      },
      end: () => j.close(),
    };
  },
  'the Jupyter API accepts and never answers (a hung server)': async () => {
    const srv = await tcpServer();
    return {
      opts: { env: { GPU_GUARD_JUPYTER_PORT: String(srv.port), JUPYTER_TOKEN: 'tok-matrix-3' } },
      check: (g) => assert.equal(g.state()!.busyReason, 'jupyter not answering'),
      end: () => srv.close(),
    };
  },
  'every kernel idle, no connection': async () => {
    const j = await fakeJupyter('tok-matrix-2');
    return { opts: { env: { GPU_GUARD_JUPYTER_PORT: String(j.port), JUPYTER_TOKEN: 'tok-matrix-2' } }, end: () => j.close() };
  },
  "an open connection to Jupyter's port (a browser tab)": async () => {
    const srv = await tcpServer();
    const c = await srv.connect();
    return {
      opts: { env: { GPU_GUARD_JUPYTER_PORT: String(srv.port) } },
      check: (g) => assert.equal(g.state()!.busyReason, 'jupyter 1'),
      end: () => (c.destroy(), srv.close()),
    };
  },
  'the heartbeat file touched recently': async () => ({
    opts: {},
    before: (g) => future(g, 'busy', 3600),
    check: (g) => assert.equal(g.state()!.busyReason, 'heartbeat'),
  }),
  'the heartbeat file older than its limit': async () => ({ opts: {}, before: (g) => future(g, 'busy', -3600) }),
  'a process whose command line holds "python train.py"': async () => {
    const p = processWith('python train.py');
    return {
      opts: { env: { GPU_GUARD_BUSY_WHILE: 'python train.py' } },
      check: (g) => assert.equal(g.state()!.busyReason, 'process python train.py'),
      end: () => p.stop(),
    };
  },
  'no such process': async () => ({ opts: { env: { GPU_GUARD_BUSY_WHILE: 'python no-such-script-runs.py' } } }),
  'Keep Running (the snooze file) not yet over': async () => ({
    opts: {},
    before: (g) => future(g, 'snooze-until', 3600),
    check: (g) => assert.equal(g.state()!.busyReason, 'snoozed'),
  }),
  'no curl on the image': async () => ({ opts: { without: ['curl'] }, check: (g) => assert.equal(g.state()!.cannotAct, 'cannot act: no curl') }),
  'maxHours reached while the GPU is busy': async () => ({ opts: { gpu: 99, env: { GPU_GUARD_CAP_SECONDS: '3', GPU_GUARD_CAP_WHY: 'maxHours' } } }),
};

/** Runs until it stops the instance, or is still busy well past the idle limit. */
async function observe(g: GuardRun, id: number): Promise<Outcome> {
  const t0 = Date.now();
  for (;;) {
    if (g.child.exitCode !== null) {
      assert.equal(g.child.exitCode, 0, g.log());
      assert.equal(gsim.intended(id), 'stopped');
      return 'stops';
    }
    const s = g.state();
    // Kept: busy well past the idle limit, with no action due (a cap) or being retried (a 429 on a busy machine).
    const due = (s?.capAt !== null && s?.capAt !== undefined && s.updatedAt >= s.capAt) || (s?.failures ?? 0) > 0;
    if (s?.busyReason && !due && s.updatedAt - s.startedAt >= IDLE + 3) return s.gpuProblem || s.cannotAct ? 'cannot judge' : 'keeps running';
    if (Date.now() - t0 > 150_000) throw new Error(`no outcome in 150 s: ${JSON.stringify(s)}\n${g.log()}`);
    await sleep(150);
  }
}

async function runCell(shell: string[], cell: Cell): Promise<void> {
  const setup = await SETUPS[cell.situation as keyof typeof SETUPS]();
  const inst = await gsim.instance();
  const g = runGuard(gsim.c, inst, { shell, ...setup.opts, env: { GPU_GUARD_IDLE_SECONDS: String(IDLE), ...setup.opts.env } });
  try {
    setup.before?.(g);
    assert.equal(await observe(g, inst.id), cell.outcome, g.log());
    await setup.check?.(g);
    if (cell.outcome !== 'stops') assert.equal(gsim.intended(inst.id), 'running');
  } finally {
    await g.stop();
    await setup.end?.();
  }
}

// Cells that start a process named sshd: the watchdog reads the machine's /proc, so each such
// situation runs on its own (both shells at once: they see the same), after the others.
const alone = (c: Cell) => /sshd listening/.test(c.situation);
const shells = SHELLS.filter((sh) => !needs(sh.argv[0] as Tool));

describe('scenario matrix', { concurrency: true }, () => {
  for (const shell of shells)
    for (const cell of CELLS.filter((c) => !alone(c)))
      test(`${shell.name} · ${cell.signal}: ${cell.situation} → ${cell.outcome}`, () => runCell(shell.argv, cell));
});
for (const cell of CELLS.filter(alone)) {
  describe(`scenario matrix, alone: ${cell.situation}`, { concurrency: true }, () => {
    for (const shell of shells) test(`${shell.name} · ${cell.signal}: ${cell.situation} → ${cell.outcome}`, () => runCell(shell.argv, cell));
  });
}

test('the matrix ran under dash and busybox sh', { skip: needs('dash', 'busybox') }, () => assert.equal(shells.length, 2));

test('docs/idle-guard.md publishes exactly this matrix', () => {
  const doc = readFileSync(join(repoRoot(), 'docs', 'idle-guard.md'), 'utf8');
  const start = doc.indexOf(MATRIX_START);
  const end = doc.indexOf(MATRIX_END);
  assert.ok(start >= 0 && end > start, 'the matrix markers are in docs/idle-guard.md');
  assert.equal(doc.slice(start + MATRIX_START.length, end).trim(), matrixTable(), 'regenerate the table from test/unit/guard/matrixCells.ts (matrixTable())');
});
