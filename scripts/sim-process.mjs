// Starts the service simulator (dist/sim.js, built by scripts/build.mjs) as a child process
// on a free loopback port and returns { url, port, pid, stop(), recent() } (recent: its last lines after listening).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { root, killTree } from './code-server.mjs';

export async function startSimulatorProcess({ testControl = false, args = [], timeoutMs = 15_000 } = {}) {
  const script = join(root, 'dist', 'sim.js');
  if (!existsSync(script)) throw new Error('dist/sim.js is missing: run `node scripts/build.mjs` first (the simulator lives in src/sim/)');
  const child = spawn(process.execPath, [script, '--port', '0', ...(testControl ? ['--test-control'] : []), ...args], {
    cwd: root,
    // The demo's key goes in the environment, never on the command line (every local user can read that).
    env: args.includes('--demo') ? { ...process.env, GPU_RENTAL_SIM_API_KEY: DEMO_KEY } : process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = () => killTree(child.pid, 'SIGTERM');
  // The simulator's own events after it listens (an SSH listener opened, or one that could not
  // be): the last 200, for a runner to print when a test failed.
  const recent = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the simulator printed no "listening on" line within ${timeoutMs} ms\n${[...seen, stderr].join('\n')}`)),
      timeoutMs,
    );
    const lines = createInterface({ input: child.stdout });
    // Lines before "listening on" are the simulator's own events (an SSH listener opened for a
    // seeded running instance): skip them; later lines are drained so it never blocks on a full pipe.
    const seen = [];
    const onLine = (line) => {
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (!m) {
        seen.push(line.slice(0, 200));
        return;
      }
      clearTimeout(timer);
      lines.off('line', onLine);
      lines.on('line', (later) => {
        recent.push(later.slice(0, 300));
        if (recent.length > 200) recent.shift();
      });
      resolve(m[1].replace(/\/+$/, ''));
    };
    lines.on('line', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited with code ${code} before listening\n${stderr}`));
    });
  }).catch((e) => {
    stop();
    throw e;
  });
  return { url, port: Number(new URL(url).port), pid: child.pid, child, stop, recent: () => [...recent] };
}

/**
 * The simulator of the VS Code tier: the live service's era by default (GPU_RENTAL_TEST_ERA=seed
 * for service-api.md), its read-after-create lag, and the rate limits of the endpoints the
 * extension paces (list walks 1 s, show 2 s); the others off, so tests that search and create
 * back to back are not refused (GPU_RENTAL_TEST_RATE_LIMITS=service|off|show=2,... to change).
 */
export function simArgs(env = process.env) {
  return ['--era', env.GPU_RENTAL_TEST_ERA || 'today', '--rate-limits', env.GPU_RENTAL_TEST_RATE_LIMITS || 'list=1,show=2'];
}

/**
 * The demo simulator's full-access key: random per run (another local process cannot guess it), given
 * to the simulator in GPU_RENTAL_SIM_API_KEY and to the extension in GPU_RENTAL_DEMO_API_KEY, which it
 * accepts only for a loopback URL.
 */
export const DEMO_KEY = randomBytes(32).toString('hex');

/**
 * The simulator as `npm run demo` runs it, also used by the .vsix smoke tier: --demo-inbox (the 2FA
 * prompts show the codes the simulator "sent"), --run-onstart with --demo (of each instance's onstart
 * only the idle guard runs, as the repository's own watchdog, with a fake nvidia-smi on its PATH, so
 * it watches, warns and stops; the key only in the Authorization header, DEMO_KEY) and
 * --guard-tick 10 (it looks every 10 s, not every minute).
 */
export const DEMO_SIM_ARGS = ['--demo-inbox', '--run-onstart', '--demo', '--guard-script', join(root, 'src', 'guard', 'watchdog.sh'), '--guard-tick', '10'];
