// Request economy row: the real PolledInstanceStore/Poller on a virtual clock against the
// simulator for 10 simulated minutes per scenario; requests counted from the simulator's log.
// Prints one JSON line.
import type { RunningSim } from '../src/sim';
import { startSim } from '../test/kit/sim';
import { createApiClient } from '../src/api/client';
import type { ServiceApi } from '../src/api/types';
import { PolledInstanceStore } from '../src/instances/instanceStore';
import { DEFAULT_POLLER_CONFIG, type Timers } from '../src/core/poller';

const MINUTES = 10;
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

class VirtualTimers implements Timers {
  t = 0;
  private seq = 0;
  private readonly q = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.q.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.q.delete(h as number);
  }
  now(): number {
    return this.t;
  }
  /** Removes and returns the earliest timer due before `end`. */
  next(end: number): { at: number; fn: () => void } | undefined {
    let best: [number, { at: number; fn: () => void }] | undefined;
    for (const e of this.q) if (!best || e[1].at < best[1].at) best = e;
    if (!best || best[1].at >= end) return undefined;
    this.q.delete(best[0]);
    return best[1];
  }
}

interface Scenario {
  name: string;
  instances: number;
  visible: boolean;
  signedIn: boolean;
  provisioning?: boolean;
}

async function run(s: Scenario): Promise<Record<string, unknown>> {
  const sim: RunningSim = await startSim({ instances: s.instances, offers: 600, bootSeconds: 180, rateLimitPerSecond: 1000 });
  try {
    if (s.provisioning) {
      const headers = { Authorization: 'Bearer sim-api-key', 'Content-Type': 'application/json' };
      const offers = (await (await fetch(`${sim.url}/api/v0/bundles/`, { method: 'POST', headers, body: JSON.stringify({ limit: 1 }) })).json()) as {
        offers: Array<{ id: number }>;
      };
      const res = await fetch(`${sim.url}/api/v0/asks/${offers.offers[0]!.id}/`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ image: 'pytorch/pytorch', disk: 10, runtype: 'ssh' }),
      });
      if (!res.ok) throw new Error(`creating the provisioning instance failed: ${res.status} ${await res.text()}`);
    }
    sim.state.requests.length = 0;
    const timers = new VirtualTimers();
    const inflight = new Set<Promise<unknown>>();
    // Pacing off: the clock here is virtual; the pages of one walk are counted, not timed.
    const real = createApiClient({ baseUrl: sim.url, credentials: { token: () => (s.signedIn ? 'sim-api-key' : undefined) }, log: silent, pacing: 'off' });
    const api: ServiceApi = {
      ...real,
      listInstances: (o) => {
        const p = real.listInstances(o);
        inflight.add(p);
        void p.catch(() => undefined).finally(() => inflight.delete(p));
        return p;
      },
    };
    const store = new PolledInstanceStore({
      api: async () => api,
      isSignedIn: () => s.signedIn,
      generation: () => 1,
      config: () => DEFAULT_POLLER_CONFIG,
      describeError: (e) => String(e),
      timers,
      random: () => 0,
    });
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        while (inflight.size) await Promise.allSettled([...inflight]);
        await new Promise((r) => setImmediate(r));
      }
    };
    store.poller.setVisible(s.visible);
    store.poller.start();
    await settle();
    const end = MINUTES * 60_000;
    for (let e = timers.next(end); e; e = timers.next(end)) {
      // The simulator's clock follows the virtual one, so a provisioning instance boots in time.
      sim.state.advance((e.at - timers.t) / 1000);
      timers.t = e.at;
      e.fn();
      await settle();
    }
    store.dispose();
    const api_ = sim.state.requests.filter((r) => !r.path.startsWith('/_sim'));
    const list = api_.filter((r) => r.method === 'GET' && /^\/api\/v[01]\/instances\/?$/.test(r.path)).length;
    return {
      name: s.name,
      requests: api_.length,
      instances: s.instances,
      listCalls: list,
      otherCalls: api_.length - list,
      perMinute: api_.length / MINUTES,
      stillProvisioning: store.instances.some((i) => i.state === 'loading'),
    };
  } finally {
    await sim.close();
  }
}

async function main() {
  const scenarios: Scenario[] = [
    { name: 'visible, 0 instances steady', instances: 0, visible: true, signedIn: true },
    { name: 'visible, 10 instances steady', instances: 10, visible: true, signedIn: true },
    { name: 'visible, 200 instances steady', instances: 200, visible: true, signedIn: true },
    { name: 'hidden, 10 instances steady', instances: 10, visible: false, signedIn: true },
    { name: 'hidden, 10 steady + 1 provisioning (boots in 3 min)', instances: 10, visible: false, signedIn: true, provisioning: true },
    { name: 'signed out', instances: 10, visible: true, signedIn: false },
  ];
  const out = [];
  for (const s of scenarios) out.push(await run(s));
  process.stdout.write(
    `${JSON.stringify({ minutes: MINUTES, intervalMs: DEFAULT_POLLER_CONFIG.intervalMs, hiddenIntervalMs: DEFAULT_POLLER_CONFIG.hiddenIntervalMs, scenarios: out })}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
