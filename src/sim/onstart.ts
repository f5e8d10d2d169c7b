// Runs an instance's onstart for real, under test control or in the demo (off by default):
// /bin/sh in the instance's scratch folder with the section-7 variables, the simulator's URL,
// and a fake `nvidia-smi` first on PATH that prints the GPU utilisation tests set through
// /_sim/instances/{id}/gpu. The list's gpu_util follows the same value. Like the service,
// onstart starts once the instance runs (again after each start); a stop or destroy ends
// everything it started (after a short delay: a container does not vanish mid-request).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actualStatus } from './instances';
import { gpuUtilFile, instanceEnv, instanceHome, requestEnv, sandboxRoot } from './sandbox';
import type { SimInstance, SimState } from './state';
import { onstartCommand } from './guardOnly';
import { memberPath } from './memberNet';

interface Runner {
  enabled: boolean;
  /** Extra environment for every onstart (test knobs such as GPU_GUARD_TICK). */
  env: Record<string, string>;
  /** Include the fake nvidia-smi on PATH (false: a CPU image). */
  nvidiaSmi: boolean;
  running: Map<number, ChildProcess>;
  /** Onstarts of ended instances whose kill is scheduled (instanceEnded's delay): killed at once on close. */
  ending: Set<ChildProcess>;
  /** Instances whose onstart waits for the instance to reach running. */
  pending: Set<number>;
  timer: NodeJS.Timeout | null;
  /** Demo mode: instances that got their short fake load already. */
  demoLoaded: Set<number>;
}

/** The demo's fake job on each new instance: this GPU utilisation for this long, then 0 %. */
export const DEMO_LOAD = { util: 72, seconds: 40 };

const runners = new WeakMap<SimState, Runner>();

function runnerOf(state: SimState): Runner {
  let r = runners.get(state);
  if (!r) {
    r = { enabled: false, env: {}, nvidiaSmi: true, running: new Map(), ending: new Set(), pending: new Set(), timer: null, demoLoaded: new Set() };
    runners.set(state, r);
  }
  return r;
}

const KNOB = /^GPU_GUARD_[A-Z_]+$/;

/** Turns the runner on or off; `env` may only hold GPU_GUARD_* test knobs. */
export function configureOnstart(state: SimState, opts: { enabled: boolean; env?: Record<string, unknown>; nvidiaSmi?: boolean }): void {
  const r = runnerOf(state);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (!KNOB.test(k) || (typeof v !== 'string' && typeof v !== 'number'))
      throw new Error(`env may only set GPU_GUARD_* knobs to strings or numbers (got ${k.slice(0, 40)})`);
    env[k] = String(v);
  }
  r.enabled = opts.enabled;
  r.env = env;
  r.nvidiaSmi = opts.nvidiaSmi ?? true;
  if (!r.enabled) stopAllOnstart(state);
}

const FAKE_NVIDIA_SMI = `#!/bin/sh
# The simulator's nvidia-smi: one utilisation per GPU, as the tests set it.
cat "$GPU_SIM_UTIL_FILE" 2>/dev/null || echo 0
`;

function fakeBin(state: SimState): string {
  const dir = join(sandboxRoot(state), 'bin');
  mkdirSync(dir, { recursive: true });
  const f = join(dir, 'nvidia-smi');
  writeFileSync(f, FAKE_NVIDIA_SMI);
  chmodSync(f, 0o755);
  return dir;
}

const utilFile = gpuUtilFile;

/** PATH in the instance's shells (onstart and SSH): the fake nvidia-smi first while the runner runs with it. */
export function instancePath(state: SimState): string {
  const r = runnerOf(state);
  return `${r.enabled && r.nvidiaSmi ? `${fakeBin(state)}:` : ''}${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`;
}

/** Sets the utilisation (percent per GPU) the fake nvidia-smi and the list's gpu_util report. */
export function setGpuUtil(state: SimState, inst: SimInstance, util: number[]): void {
  inst.gpuUtil = util;
  writeFileSync(utilFile(state, inst.id), util.map((u) => `${Math.round(u)}\n`).join(''));
}

/** The instance is (again) meant to run: its onstart starts once it reaches running. */
export function instanceStarted(state: SimState, inst: SimInstance): void {
  const r = runnerOf(state);
  if (!r.enabled || !inst.onstart) return;
  r.pending.add(inst.id);
  if (!r.timer) {
    r.timer = setInterval(() => tick(state), 200);
    r.timer.unref();
  }
}

function tick(state: SimState): void {
  const r = runnerOf(state);
  for (const id of [...r.pending]) {
    const inst = state.instances.get(id);
    if (!inst || inst.intended !== 'running') {
      r.pending.delete(id);
      continue;
    }
    if (actualStatus(inst, state.now()) === 'running') {
      r.pending.delete(id);
      run(state, inst);
    }
  }
  if (!r.pending.size && r.timer) {
    clearInterval(r.timer);
    r.timer = null;
  }
}

function run(state: SimState, inst: SimInstance): void {
  const r = runnerOf(state);
  if (r.running.has(inst.id)) return;
  const home = instanceHome(state, inst.id);
  if (state.config.demoInbox && !r.demoLoaded.has(inst.id)) {
    // The demo: a short "training job" on the fake GPU, then idle, so the guard is seen watching,
    // warning and stopping the instance within minutes (the demo's templates use 2 idle minutes).
    r.demoLoaded.add(inst.id);
    setGpuUtil(state, inst, [DEMO_LOAD.util]);
    setTimeout(() => {
      if (state.instances.get(inst.id)) setGpuUtil(state, inst, [0]);
    }, DEMO_LOAD.seconds * 1000).unref();
  } else if (!inst.gpuUtil) setGpuUtil(state, inst, [0]);
  const path = memberPath(state, inst, instancePath(state));
  // In demo mode only the idle guard runs, or nothing (guardOnly.ts).
  const cmd = onstartCommand(state, inst, home, { ...instanceEnv(state, inst), PATH: path, ...r.env }, requestEnv(inst));
  if (!cmd) return;
  const out = openSync(join(home, 'onstart.log'), 'a');
  try {
    const child = spawn('/bin/sh', cmd.args, {
      cwd: home,
      env: cmd.env,
      detached: true,
      stdio: ['ignore', out, out],
    });
    child.on('error', () => r.running.delete(inst.id));
    r.running.set(inst.id, child);
  } finally {
    closeSync(out);
  }
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The instance stopped or was destroyed: end what its onstart started, a moment later. */
export function instanceEnded(state: SimState, id: number, delayMs = 1500): void {
  const r = runnerOf(state);
  r.pending.delete(id);
  const child = r.running.get(id);
  if (!child) return;
  r.running.delete(id);
  if (delayMs <= 0) return killGroup(child);
  r.ending.add(child);
  setTimeout(() => {
    r.ending.delete(child);
    killGroup(child);
  }, delayMs).unref();
}

/** Ends every onstart (reset, runner off, simulator closing). */
export function stopAllOnstart(state: SimState): void {
  const r = runnerOf(state);
  for (const id of [...r.running.keys()]) instanceEnded(state, id, 0);
  // An instance that ended just before (the guard stopped it) still has its watchdog writing its
  // last state for up to instanceEnded's delay: end it now, before the sandbox is removed.
  for (const child of r.ending) killGroup(child);
  r.ending.clear();
  r.pending.clear();
  if (r.timer) clearInterval(r.timer);
  r.timer = null;
}
