// Runs the real watchdog script (src/guard/watchdog.sh, the text the extension ships) under a
// given shell against the simulator, with a fake nvidia-smi and a private TMPDIR.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_PARTS, WATCHDOG_SCRIPT, minifiedWatchdog } from '../../../src/guard/plan';
import { readWatchdogState, type WatchdogState } from '../../../src/guard/watchdogState';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { start, type Ctx } from '../sim/helpers';
import { sleep, waitFor } from '../../kit/wait';

export const SHELLS: Array<{ name: string; argv: string[] }> = [
  { name: 'dash', argv: ['dash'] },
  { name: 'busybox sh', argv: ['busybox', 'sh'] },
];

export interface GuardRun {
  dir: string;
  tmp: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  setGpu(util: number | number[]): void;
  /** state.json as VS Code reads it (undefined: none yet, or a shape VS Code would not accept). */
  state(): WatchdogState | undefined;
  /** state.json as written. */
  raw(): unknown;
  log(): string;
  stop(): Promise<void>;
}

/** Tools the script needs, for a PATH without curl/wget (the fallback HTTP clients). */
const TOOLS = [
  'sh',
  'ls',
  'kill',
  'timeout',
  'mkdir',
  'wc',
  'date',
  'mv',
  'tr',
  'cat',
  'rm',
  'sleep',
  'stat',
  'cut',
  'awk',
  'grep',
  'head',
  'printf',
  'echo',
  'nohup',
  'base64',
  'gzip',
  'python3',
  'wget',
  'curl',
  'sed',
];

function which(tool: string): string | undefined {
  // python3 may be a version-manager shim that needs the full PATH: link the real interpreter.
  if (tool === 'python3') {
    const p = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
    if (p.status === 0 && p.stdout.trim().startsWith('/')) return p.stdout.trim();
  }
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p.startsWith('/') ? p : undefined;
}

export interface RunOptions {
  shell: string[];
  env?: Record<string, string>;
  /** No nvidia-smi on PATH (a CPU image, or a GPU machine without it). */
  noNvidia?: boolean;
  /** How the fake nvidia-smi behaves: prints the utilisation (default), exits 1, or hangs. */
  smi?: 'ok' | 'failing' | 'hanging';
  /** Run the source as written instead of the text onstart ships (minified, all parts). */
  source?: boolean;
  /** Limit PATH to the script's tools, leaving these out (e.g. ['curl']). */
  without?: string[];
  gpu?: number | number[];
  /** Run in the folder of an earlier run (same script path, TMPDIR and guard files): a restart. */
  dir?: string;
}

export function runGuard(c: Ctx, inst: { id: number; key: string }, o: RunOptions): GuardRun {
  const own = !o.dir;
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'gpu-guard-test-'));
  const tmp = join(dir, 'tmp');
  const bin = join(dir, 'bin');
  mkdirSync(tmp, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const script = join(dir, 'guard.sh');
  writeFileSync(script, o.source ? WATCHDOG_SCRIPT : minifiedWatchdog(WATCHDOG_SCRIPT, ALL_PARTS));
  const utilFile = join(dir, 'gpu-util');
  const setGpu = (u: number | number[]) => writeFileSync(utilFile, (Array.isArray(u) ? u : [u]).map((x) => `${x}\n`).join(''));
  setGpu(o.gpu ?? 0);
  if (!o.noNvidia) {
    const body = o.smi === 'failing' ? 'echo "NVIDIA-SMI has failed" >&2; exit 9' : o.smi === 'hanging' ? 'exec sleep 120' : `cat '${utilFile}'`;
    writeFileSync(join(bin, 'nvidia-smi'), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
  }
  let path = `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  if (o.without) {
    const only = join(dir, 'only');
    mkdirSync(only, { recursive: true });
    for (const t of TOOLS) {
      const p = which(t);
      if (p && !o.without.includes(t) && !existsSync(join(only, t))) symlinkSync(p, join(only, t));
    }
    path = `${bin}:${only}`;
  }
  const env: Record<string, string> = {
    PATH: path,
    TMPDIR: tmp,
    // Its own home: a group member's files are read from $HOME/.gpu-rental.
    HOME: dir,
    CONTAINER_ID: String(inst.id),
    CONTAINER_API_KEY: inst.key,
    GPU_GUARD_API: c.sim.url,
    GPU_GUARD_TICK: '1',
    GPU_GUARD_IDLE_SECONDS: '2',
    // Ports nothing listens on (this machine's own sshd or a web server on 8080 is not the instance's).
    GPU_GUARD_SSH_PORT: '1',
    GPU_GUARD_JUPYTER_PORT: '2',
    ...o.env,
  };
  const child = spawn(which(o.shell[0]!) ?? o.shell[0]!, [...o.shell.slice(1), script], { env, stdio: 'ignore' });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const gdir = join(tmp, 'gpu-rental');
  const raw = (): unknown => {
    try {
      return JSON.parse(readFileSync(join(gdir, 'state.json'), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    tmp,
    child,
    exited,
    setGpu,
    state: () => readWatchdogState(raw()),
    raw,
    log: () => (existsSync(join(gdir, 'guard.log')) ? readFileSync(join(gdir, 'guard.log'), 'utf8') : ''),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      if (own) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { sleep };

/** Polls until fn returns a truthy value, or fails after ms (the kit's waitFor, what first). */
export const until = <T>(what: string, fn: () => T | Promise<T>, ms = 15000) => waitFor(fn, ms, what);

/** The simulator a guard test file runs against (1 s boots) and running instances of its own. */
export interface GuardSim {
  /** The started simulator: read it inside a test. */
  readonly c: Ctx;
  /** A rentable offer no other test of the file took (tests run concurrently: each takes its own). */
  freeOffer(): number;
  /** Rents a free offer (with `body` added to the request), waits for it to run; its id and instance key. */
  instance(body?: Record<string, unknown>): Promise<{ id: number; key: string }>;
  /** What the service intends for the instance now ('gone' once destroyed). */
  intended(id: number): string;
}

export function guardSim(): GuardSim {
  let started: Ctx | undefined;
  before(async () => {
    started = await start({ bootSeconds: 1 });
  });
  after(async () => {
    await started?.sim.close();
  });
  const taken = new Set<number>();
  const g: GuardSim = {
    get c(): Ctx {
      if (!started) throw new Error('the guard simulator is not started yet: read it inside a test');
      return started;
    },
    freeOffer() {
      const free = g.c.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken && !taken.has(o.id))!;
      taken.add(free.id);
      return free.id;
    },
    async instance(body = {}) {
      const r = await g.c.call('PUT', `/api/v0/asks/${g.freeOffer()}/`, { image: 'ubuntu', runtype: 'ssh_direct', ...body });
      assert.equal(r.status, 200, JSON.stringify(r.json.msg));
      await g.c.ctl.finishBoot(r.json.new_contract);
      return { id: r.json.new_contract, key: r.json.instance_api_key };
    },
    intended: (id) => g.c.sim.state.instances.get(id)?.intended ?? 'gone',
  };
  return g;
}
