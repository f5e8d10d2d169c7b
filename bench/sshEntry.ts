// Time to SSH entry at default settings: from the simulator marking an instance running to its
// Host entry in the SSH config file, with the create flow's poller (pollUntilReady) at the default
// poll interval (gpuRental.pollIntervalSeconds), the client's service pacing, the simulator's
// service rate limits for show-instance and the list, and the real SshConfigWriter on a temporary
// HOME (the create flow writes the entry as soon as the read that shows it running is in).
// Prints one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../test/kit/sim';
import { SimControl } from '../src/sim/control';
import { createApiClient } from '../src/api/client';
import { pollUntilReady, realClock } from '../src/create/createFlow';
import { SshConfigWriter } from '../src/ssh/sshConfigWriter';
import { SETTING_BOUNDS } from '../src/core/settingBounds';

/** The default poll interval: the create flow's slowest status read. */
const INTERVAL_MS = SETTING_BOUNDS.pollIntervalSeconds.default * 1000;
// When the instance turns running, after the wait starts (fractions of the default interval, so
// every point of one 10 s cycle is sampled the same way whatever the reads' pace).
const PHASES = [0.1, 0.3, 0.5, 0.7, 0.9];
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  // The service's thresholds on the reads (show 2 s, list 1 s); creations and searches unlimited, to keep the bench short.
  const sim = await startSim({ testControl: true, bootSeconds: 100_000, offers: 50, rateLimits: { show: 2, list: 1 } });
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-bench-home-'));
  try {
    const control = new SimControl(sim.url);
    const api = createApiClient({ baseUrl: sim.url, credentials: { token: () => 'sim-api-key' }, log: silent });
    const writer = new SshConfigWriter({ home, origin: 'bench', log: silent });
    const delays: number[] = [];
    for (const phase of PHASES) {
      const offer = (await api.searchOffers({ limit: 1 }))[0]!;
      const { new_contract: id } = await api.createInstance(offer.id, { image: 'pytorch/pytorch', disk: 10, runtype: 'ssh' });
      const ready = pollUntilReady(api, id, realClock, silent, { targetState: 'running', intervalMs: INTERVAL_MS, maxWaitMs: 120_000 });
      await sleep(INTERVAL_MS * phase);
      const marked = Date.now();
      await control.finishBoot(id);
      const r = await ready;
      if (r.kind !== 'ready') throw new Error(`instance ${id}: ${r.kind}`);
      const alias = await writer.writeEntry(r.instance, {});
      if (!readFileSync(join(home, '.ssh', 'gpu-rental', 'config'), 'utf8').includes(alias)) throw new Error('entry not in the config');
      delays.push(Date.now() - marked);
    }
    const s = [...delays].sort((a, b) => a - b);
    process.stdout.write(
      `${JSON.stringify({ intervalMs: INTERVAL_MS, phases: PHASES, delaysMs: delays, medianMs: s[s.length >> 1], maxMs: s[s.length - 1] })}\n`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
    await sim.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
