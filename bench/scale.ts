// Scale row: parse + validate + build the view models (tree rows) for 1,000 offers and 500
// instances served by the simulator (1,600 offers seeded: the 500 instances rent 500 of them). Prints one JSON line. `--memory` (run with
// --expose-gc) reports heap/rss growth of keeping one such build instead of timings.
import { startSim } from '../test/kit/sim';
import { instanceListSchema, offerListSchema, safeParse } from '../src/api/schemas';
import { instanceRow } from '../src/instances/instanceViewModel';
import { instanceDetails } from '../src/instances/detailRows';
import { offerRow } from '../src/offers/offerRow';

const RUNS = 15;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function parseInstances(text: string) {
  const r = safeParse(instanceListSchema, JSON.parse(text));
  if (!r.success) throw new Error('instance list did not validate');
  return r.data.instances;
}

/** What a refresh costs: the list parsed and validated, one tree row per instance. */
function buildInstances(text: string) {
  return parseInstances(text).map((i) => instanceRow(i));
}

function buildOffers(text: string) {
  const r = safeParse(offerListSchema, JSON.parse(text));
  if (!r.success) throw new Error('offer list did not validate');
  return r.data.map(offerRow);
}

async function main() {
  // The seed era's v0 list: one JSON document of all 500, the same rows the v1 pages carry.
  const sim = await startSim({ era: 'seed', offers: 1600, instances: 500 });
  try {
    const auth = { Authorization: 'Bearer sim-api-key', 'Content-Type': 'application/json' };
    const instancesText = await (await fetch(`${sim.url}/api/v0/instances/`, { headers: auth })).text();
    const offersText = await (await fetch(`${sim.url}/api/v0/bundles/`, { method: 'POST', headers: auth, body: JSON.stringify({ limit: 1000 }) })).text();
    const counts = { instances: buildInstances(instancesText).length, offers: buildOffers(offersText).length };
    if (process.argv.includes('--memory')) {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (!gc) throw new Error('run with --expose-gc');
      // A second simulator response set, built once and kept, as the extension host keeps its stores.
      gc();
      const m0 = process.memoryUsage();
      const kept = [parseInstances(instancesText).map((i) => ({ row: instanceRow(i), details: instanceDetails(i) })), buildOffers(offersText)];
      gc();
      const m1 = process.memoryUsage();
      process.stdout.write(`${JSON.stringify({ counts, heapDeltaBytes: m1.heapUsed - m0.heapUsed, rssDeltaBytes: m1.rss - m0.rss, kept: kept.length })}\n`);
      return;
    }
    const time = (fn: () => unknown) => {
      const t0 = performance.now();
      fn();
      return performance.now() - t0;
    };
    // The first build includes the lazy schema construction and JIT warm-up: reported as "cold".
    const coldInstances = time(() => buildInstances(instancesText));
    const coldOffers = time(() => buildOffers(offersText));
    const inst: number[] = [];
    const off: number[] = [];
    const det: number[] = [];
    const parsed = parseInstances(instancesText);
    for (let i = 0; i < RUNS; i++) {
      inst.push(time(() => buildInstances(instancesText)));
      off.push(time(() => buildOffers(offersText)));
      // Expanding a row builds its details: all 500 at once is the worst case.
      det.push(time(() => parsed.map((x) => instanceDetails(x))));
    }
    process.stdout.write(
      `${JSON.stringify({ counts, runs: RUNS, instancesMs: median(inst), offersMs: median(off), allDetailsMs: median(det), coldInstancesMs: coldInstances, coldOffersMs: coldOffers, bytes: { instances: instancesText.length, offers: offersText.length } })}\n`,
    );
  } finally {
    await sim.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
