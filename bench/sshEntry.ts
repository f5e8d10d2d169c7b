// Time to SSH entry: from the simulator marking an instance running to its Host entry written,
// with the create flow's poller (pollUntilReady) and the real SshConfigWriter on a temporary
// HOME. The poll interval is scaled down (INTERVAL_MS) to keep the bench short; the target is
// relative to it. Prints one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../test/kit/sim';
import { SimControl } from '../src/sim/control';
import { createApiClient } from '../src/api/client';
import { pollUntilReady, realClock } from '../src/create/createFlow';
import { SshConfigWriter } from '../src/ssh/sshConfigWriter';

const INTERVAL_MS = 1000;
// Where in the poll cycle the instance turns running (fractions of the interval).
const PHASES = [0.1, 0.3, 0.5, 0.7, 0.9];
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const sim = await startSim({ testControl: true, bootSeconds: 100_000, offers: 50, rateLimitPerSecond: 1000 });
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-bench-home-'));
  try {
    const control = new SimControl(sim.url);
    const api = createApiClient({ baseUrl: sim.url, credentials: { token: () => 'sim-api-key' }, log: silent, pacing: 'off' });
    const writer = new SshConfigWriter({ home, origin: 'bench', log: silent });
    const delays: number[] = [];
    for (const phase of PHASES) {
      const offer = (await api.searchOffers({ limit: 1 }))[0]!;
      const { new_contract: id } = await api.createInstance(offer.id, { image: 'pytorch/pytorch', disk: 10, runtype: 'ssh' });
      const started = Date.now();
      const ready = pollUntilReady(api, id, realClock, silent, { targetState: 'running', intervalMs: INTERVAL_MS, maxWaitMs: 60_000 });
      await sleep(INTERVAL_MS * (1 + phase));
      const marked = Date.now();
      await control.finishBoot(id);
      const r = await ready;
      if (r.kind !== 'ready') throw new Error(`instance ${id}: ${r.kind}`);
      const alias = await writer.writeEntry(r.instance, {});
      const written = Date.now();
      if (!readFileSync(join(home, '.ssh', 'gpu-rental', 'config'), 'utf8').includes(alias)) throw new Error('entry not in the config');
      delays.push(written - marked);
      if (marked - started < INTERVAL_MS) throw new Error('marked before the first poll');
    }
    const s = [...delays].sort((a, b) => a - b);
    process.stdout.write(`${JSON.stringify({ intervalMs: INTERVAL_MS, phases: PHASES, delaysMs: delays, medianMs: s[s.length >> 1], maxMs: s[s.length - 1] })}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
    await sim.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
