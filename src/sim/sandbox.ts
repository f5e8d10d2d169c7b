// Per-instance scratch folders of the simulator: the "inside" of a simulated instance, used as
// HOME and working directory by the onstart runner (onstart.ts) and the SSH server's shells.
// Everything lives under one temp dir per simulator, removed when the simulator closes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderInstance } from './instances';
import type { SimInstance, SimState } from './state';

const roots = new WeakMap<SimState, string>();
const urls = new WeakMap<SimState, string>();

/** The simulator's temp dir (created on first use). */
export function sandboxRoot(state: SimState): string {
  let r = roots.get(state);
  if (!r) {
    r = mkdtempSync(join(tmpdir(), 'gpu-rental-sim-'));
    roots.set(state, r);
  }
  return r;
}

/** Records the simulator's base URL (known once it listens), given to instances as GPU_RENTAL_API_URL. */
export function setSandboxUrl(state: SimState, url: string): void {
  urls.set(state, url);
}

/** The scratch folder of one instance (created on demand). */
export function instanceHome(state: SimState, id: number): string {
  const d = join(sandboxRoot(state), `instance-${id}`);
  mkdirSync(join(d, 'tmp'), { recursive: true });
  return d;
}

/** The file the fake nvidia-smi reads (one utilisation per GPU per line). */
export function gpuUtilFile(state: SimState, id: number): string {
  return join(instanceHome(state, id), 'gpu-util');
}

/** The section-7 variables every instance gets, plus the simulator's URL, HOME and TMPDIR. */
export function instanceEnv(state: SimState, inst: SimInstance): Record<string, string> {
  const home = instanceHome(state, inst.id);
  const env: Record<string, string> = {
    CONTAINER_ID: String(inst.id),
    CONTAINER_API_KEY: inst.apiKey,
    VAST_CONTAINERLABEL: `C.${inst.id}`,
    PUBLIC_IPADDR: '',
    GPU_RENTAL_API_URL: urls.get(state) ?? `http://${state.config.host}:${state.config.port}`,
    HOME: home,
    // /tmp of the simulated instance: the idle guard keeps its files in $TMPDIR/gpu-rental.
    TMPDIR: join(home, 'tmp'),
    // What the simulator's nvidia-smi prints (src/sim/onstart.ts).
    GPU_SIM_UTIL_FILE: join(home, 'gpu-util'),
  };
  const rec = renderInstance(state, inst);
  // What the record says (127.0.0.1 while the simulator's SSH servers are on).
  env.PUBLIC_IPADDR = String(rec.public_ipaddr ?? '127.0.0.1');
  const ports = (rec.ports ?? {}) as Record<string, Array<{ HostPort: string }>>;
  for (const [key, binds] of Object.entries(ports)) {
    const m = /^(\d+)\/tcp$/.exec(key);
    if (m && binds[0]) env[`VAST_TCP_PORT_${m[1]}`] = binds[0].HostPort;
  }
  // Behind the proxy, port 22 is reached on the proxy's port.
  if (!env.VAST_TCP_PORT_22 && typeof rec.ssh_port === 'number' && rec.ssh_port > 0) env.VAST_TCP_PORT_22 = String(rec.ssh_port);
  // The simulator translates no ports: its SSH server's own port is where SSH is published (the
  // idle guard counts sessions there, as on a machine with host networking). A Jupyter-proxy
  // instance's SSH is on ssh_port + 1, so the listener decides.
  const listening = state.sshListenPort?.(inst);
  if (listening) env.VAST_TCP_PORT_22 = String(listening);
  return env;
}

/**
 * The plain variables of the create request's `env` (and its service template's), which the
 * service gives the container (so onstart sees them; SSH sessions do not): "-p" port keys are no
 * variables.
 */
export function requestEnv(inst: SimInstance): Record<string, string> {
  return Object.fromEntries(Object.entries(inst.env).filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)));
}

/** Removes every instance's folder (the simulator is closing). */
export function closeSandbox(state: SimState): void {
  const r = roots.get(state);
  // Retried: a killed onstart may still be finishing a write for a moment.
  if (r) rmSync(r, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  roots.delete(state);
}
