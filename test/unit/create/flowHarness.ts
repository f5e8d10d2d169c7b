// The create flow's test harness: one simulator per test file (reset before each test), ports
// that record what the flow did, and a clock whose sleeps advance the simulator's clock.
import type { SimControl } from '../../../src/sim/control';
import { recordedPrompts } from '../../kit/prompts';
import { MemoryState } from '../../kit/state';
import { useTestSim } from '../../kit/simPerFile';
import type { StartedSim } from '../../kit/sim';
import { createApiClient } from '../../../src/api/client';
import type { Instance, Logger, Offer, ServiceApi } from '../../../src/api/types';
import type { SshOptions } from '../../../src/ssh/sshTypes';
import type { Template } from '../../../src/create/templateSchema';
import type { Clock, CreateFlowPorts, FlowPrompts, ProgressUpdate } from '../../../src/create/createFlow';

let started: { readonly current: StartedSim } | undefined;

/** This test file's simulator and its control client (useFlowSim() starts them). */
export const flowSim = {
  get sim(): StartedSim {
    if (!started) throw new Error('call useFlowSim() at the top of the test file');
    return started.current;
  },
  get control(): SimControl {
    return flowSim.sim.ctl;
  },
};

/**
 * Starts the simulator for this test file and resets it before each test. A failed boot's log is
 * ready after 50 ms instead of the service-like 900 ms: the flow still has to wait for it (the
 * log tests of the API client keep the longer delay), but no flow test sits out most of a second.
 */
export function useFlowSim(): void {
  started = useTestSim({ era: 'today', invisibleSeconds: 0, logDelayMs: 50 });
}

export function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (l: string) => (m: string) => void lines.push(`${l} ${m}`);
  return { lines, trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

/** More waits than any flow of these tests makes (at most 60 so far): a wait that never ends fails at once. */
const MAX_SLEEPS = 200;

/** Sleeping advances the simulator's clock instead of waiting. */
export function simClock(): Clock & { slept: number[] } {
  return virtualClock({ max: MAX_SLEEPS, advance: async (ms) => void (await flowSim.control.advance(ms / 1000)) });
}

/**
 * A clock whose sleeps return at once, adding to its time (and advancing `advance`, e.g. a
 * simulator). More than `max` sleeps fail: a wait that never ends. From sleep number `hangAfter`
 * on, a sleep never returns (the window reloaded under the flow), after calling `onHang`.
 */
export function virtualClock(o: {
  max: number;
  advance?: (ms: number) => Promise<void>;
  hangAfter?: number | null;
  onHang?: () => void;
}): Clock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      if (o.hangAfter != null && slept.length > o.hangAfter) {
        o.onHang?.();
        return new Promise<void>(() => undefined);
      }
      if (slept.length > o.max) throw new Error(`the flow waited ${o.max} times without settling: a wait that never ends`);
      t += ms;
      await o.advance?.(ms);
    },
  };
}

export const template: Template = {
  name: 'Unit test box',
  offer: { gpuNames: ['RTX 4090', 'RTX 3090'], maxDphTotal: 5, limit: 50 },
  instance: { image: 'pytorch/pytorch:latest', disk: 20, runtype: 'ssh_direct', env: { FOO: 'bar', '-p 8080:8080': '1' } },
  ssh: { remoteFolder: '/workspace', localForwards: [{ localPort: 8080, remotePort: 8080 }] },
};

export interface Harness {
  ports: CreateFlowPorts;
  api: ServiceApi;
  log: ReturnType<typeof memoryLog>;
  state: MemoryState;
  progress: ProgressUpdate[];
  sshWrites: Array<{ id: number; host?: string | null; port?: number | null; ssh: SshOptions }>;
  upserts: number[];
  removed: number[];
  confirms: Offer[];
  clock: ReturnType<typeof simClock>;
}

export interface HarnessOptions {
  timeoutMs?: number;
  prompts?: Partial<FlowPrompts>;
  wrap?: (api: ServiceApi) => ServiceApi;
  state?: MemoryState;
  /** A client of another service than this file's simulator (the fault search's scripted one), logging to `log`. */
  client?: (log: Logger) => ServiceApi;
  /** A clock of its own (default: the simulator's, see simClock). */
  clock?: Clock & { slept: number[] };
}

export function harness(o: HarnessOptions = {}): Harness {
  const log = memoryLog();
  const raw = o.client
    ? o.client(log)
    : createApiClient({
        baseUrl: flowSim.sim.url,
        credentials: { token: () => 'sim-api-key' },
        log,
        timeoutMs: o.timeoutMs ?? 5000,
        retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
        pacing: 'off',
      });
  const api = o.wrap ? o.wrap(raw) : raw;
  const state = o.state ?? new MemoryState();
  const asked = recordedPrompts<FlowPrompts>({
    pickOffer: async (offers) => offers[0],
    confirmRent: async () => true,
    keepOrDestroy: async () => 'destroy',
    ...o.prompts,
  } as FlowPrompts);
  const h: Harness = {
    api,
    log,
    state,
    progress: [],
    sshWrites: [],
    upserts: [],
    removed: [],
    get confirms() {
      return asked.argsOf('confirmRent').map(([offer]) => offer as Offer);
    },
    clock: o.clock ?? simClock(),
    ports: undefined as unknown as CreateFlowPorts,
  };
  h.ports = {
    api,
    log,
    state,
    clock: h.clock,
    progress: (u) => h.progress.push(u),
    ssh: {
      writeEntry: async (inst, ssh) => {
        h.sshWrites.push({ id: inst.id, host: inst.ssh_host, port: inst.ssh_port, ssh });
        return `gpu-${inst.id}`;
      },
    },
    instances: { upsert: (i) => h.upserts.push(i.id), watch: () => undefined, remove: (id) => h.removed.push(id) },
    prompts: asked.prompts,
  };
  return h;
}

export async function simInstances(): Promise<Instance[]> {
  const api = createApiClient({ baseUrl: flowSim.sim.url, credentials: { token: () => 'sim-api-key' }, log: memoryLog(), pacing: 'off' });
  return (await api.listInstances()).instances;
}

export async function puts(): Promise<number> {
  return (await flowSim.control.requests()).filter((r) => r.method === 'PUT' && r.path.includes('/asks/')).length;
}
