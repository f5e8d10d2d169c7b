// Demo mode's onstart gate. The demo simulator listens on this machine and runs an instance's
// onstart as the local user, so it must not run what a template (or anything else that reached
// it) put there: it runs only the idle guard the extension adds, as the demo's own copy of the
// watchdog, with the guard's settings read from the launch line and checked one by one.
// Everything else in the onstart is not run. Tests and `--run-onstart` without `--demo` run
// the whole onstart as before.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { SimInstance, SimState } from './state';

const GUARD_FILE = '"${TMPDIR:-/tmp}/gpu-rental/guard.sh"';
const ONSTART_FILE = '"${TMPDIR:-/tmp}/gpu-rental/onstart.sh"';
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The line that starts the watchdog: `K='v' … nohup sh "<guard.sh>" </dev/null >/dev/null 2>&1 &`. */
const LAUNCH = new RegExp(`^((?:GPU_GUARD_[A-Z_]+='[^'\\n]*' )+)nohup sh ${esc(GUARD_FILE)} </dev/null >/dev/null 2>&1 &$`, 'm');
/** The all-compressed form: the whole script, gzip + base64, written to onstart.sh and sourced. */
const PACKED = new RegExp(`echo '([A-Za-z0-9+/=]{1,6000})' \\| base64 -d \\| gzip -dc >${esc(ONSTART_FILE)}`);

/** The guard's settings the demo accepts, each with the only values it may take (GPU_GUARD_API is the simulator's own). */
const SETTINGS: Record<string, RegExp> = {
  GPU_GUARD_API: /^https?:\/\/[A-Za-z0-9:/._~%[\]-]+$/,
  GPU_GUARD_IDLE_MINUTES: /^\d{1,6}$/,
  GPU_GUARD_GPU_BELOW: /^\d{1,3}$/,
  GPU_GUARD_KEEP_WHILE_SSH: /^[01]$/,
  GPU_GUARD_ACTION: /^(stop|destroy)$/,
  GPU_GUARD_CAP_SECONDS: /^\d{1,9}$/,
  GPU_GUARD_CAP_WHY: /^(maxHours|maxSpend)$/,
  GPU_GUARD_GPUS: /^\d{1,2}$/,
  GPU_GUARD_DESTROY_STOPPED_DAYS: /^\d{1,3}$/,
};

/**
 * The environment of the idle guard an onstart starts, or undefined when it starts none or its
 * launch line sets anything but the guard's own settings to their own kind of value (then the
 * demo runs nothing). GPU_GUARD_API is replaced by `apiUrl`: the guard calls this simulator only.
 */
export function guardLaunchEnv(onstart: string | undefined, apiUrl: string): Record<string, string> | undefined {
  if (typeof onstart !== 'string' || onstart.length > 16_384) return undefined;
  let text = onstart;
  const packed = PACKED.exec(text);
  if (packed) {
    try {
      text = gunzipSync(Buffer.from(packed[1]!, 'base64'), { maxOutputLength: 64 * 1024 }).toString('utf8');
    } catch {
      return undefined;
    }
  }
  const launch = LAUNCH.exec(text);
  if (!launch) return undefined;
  const env: Record<string, string> = {};
  for (const m of launch[1]!.matchAll(/(GPU_GUARD_[A-Z_]+)='([^']*)' /g)) {
    const [, key, value] = m as unknown as [string, string, string];
    const allowed = SETTINGS[key];
    if (!allowed || !allowed.test(value)) return undefined;
    env[key] = value;
  }
  env.GPU_GUARD_API = apiUrl;
  return env;
}

/** What the demo writes to the instance's onstart.log instead of running the rest. */
export const GATED_NOTE = 'gpu-rental demo: only the idle guard of this onstart runs here (the demo runs no other script on your machine)\n';

/**
 * What the onstart runner starts for an instance: its whole onstart with the request's env
 * variables under the instance's own (as the service runs it), or in demo mode only the demo's
 * own watchdog (written to $TMPDIR/gpu-rental/guard.sh) with the checked guard settings and none
 * of the request's variables (neither its GPU_GUARD_SCRIPT nor LD_PRELOAD and the like);
 * undefined when the demo runs nothing (its onstart.log says why).
 */
export function onstartCommand(
  state: SimState,
  inst: SimInstance,
  home: string,
  env: Record<string, string>,
  requestEnv: Record<string, string> = {},
): { args: string[]; env: Record<string, string> } | undefined {
  const gate = state.config.guardOnly;
  if (!gate) return { args: ['-c', inst.onstart ?? ''], env: { ...requestEnv, ...env } };
  appendFileSync(join(home, 'onstart.log'), GATED_NOTE);
  const guardEnv = guardLaunchEnv(inst.onstart ?? undefined, env.GPU_RENTAL_API_URL ?? '');
  if (!guardEnv || !gate.script) return undefined;
  const dir = join(home, 'tmp', 'gpu-rental');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'guard.sh'), gate.script);
  return { args: [join(dir, 'guard.sh')], env: { ...env, ...guardEnv } };
}
