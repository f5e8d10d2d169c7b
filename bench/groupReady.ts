// "Group ready" row: the real group flow (runGroupFlow, the real client over HTTP) against the
// simulator with short simulated boots (BOOT_S each, one member SLOW_S), for N = 2, 4 and 8, timed
// from the click to every member running. Members rent in parallel, so the time follows the
// slowest boot, not the sum of the boots. Prints one JSON line.
import { startSim } from '../test/kit/sim';
import { MemoryState } from '../test/kit/state';
import { createApiClient, closeApiTransport } from '../src/api/client';
import { runGroupFlow } from '../src/groups/groupFlow';
import { realClock } from '../src/create/flowTypes';
import type { Template } from '../src/create/templateSchema';

const BOOT_S = 2;
const SLOW_S = 4;
const POLL_MS = 250;
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

async function once(n: number): Promise<{ n: number; ms: number; outcome: string }> {
  const sim = await startSim({ era: 'today', bootSeconds: BOOT_S, invisibleSeconds: 0, testControl: true, seed: 1 });
  try {
    // One member boots slower: the group waits for it, and only for it.
    await sim.ctl.fault({ kind: 'boot', mode: 'slow', seconds: SLOW_S, skip: n - 1 });
    const api = createApiClient({ baseUrl: sim.url, credentials: { token: () => 'sim-api-key' }, log: silent, pacing: 'off' });
    const t: Template = {
      name: 'bench',
      count: n,
      offer: { gpuNames: ['RTX 4090'], numGpus: 1 },
      instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', disk: 10 },
    };
    const start = Date.now();
    const r = await runGroupFlow(
      {
        api,
        log: silent,
        state: new MemoryState(),
        clock: realClock,
        ssh: { writeEntry: async (i) => `gpu-${i.id}` },
        progress: () => undefined,
        prompts: { pickCluster: async (c) => c[0], confirmGroup: async () => true },
      },
      { template: t, templatePath: '.gpu/bench.json', confirm: false, pollIntervalMs: POLL_MS },
    );
    return { n, ms: Date.now() - start, outcome: r.outcome };
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  const rows = [];
  for (const n of [2, 4, 8]) rows.push(await once(n));
  await closeApiTransport();
  process.stdout.write(`${JSON.stringify({ bootS: BOOT_S, slowS: SLOW_S, pollMs: POLL_MS, rows })}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
