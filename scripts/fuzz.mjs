// npm run fuzz: long searches of the money invariants with random seeds: the create flow's
// (test/unit/create/createFuzz.test.ts) and the price-increase and budget-stop decisions'
// (test/unit/billing/decisions.property.test.ts), one search after another until the time is up. Each search prints its seed;
// a failing one prints fast-check's shrunk counterexample and the command that replays it. Keep every
// counterexample as a named test (the create flow's in test/unit/create/fuzzRegressions.test.ts).
//   FUZZ_MINUTES  how long to search (default 10)
//   FUZZ_RUNS     generated runs per search (default 2000)
//   FUZZ_SEED     replay one search with this seed instead
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const minutes = Number(process.env.FUZZ_MINUTES ?? 10);
const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const fixed = process.env.FUZZ_SEED;

const SEARCHES = ['out/unit/create/createFuzz.test.js', 'out/unit/groups/groupFuzz.test.js', 'out/unit/billing/decisions.property.test.js'];

const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const until = Date.now() + minutes * 60_000;
let searches = 0;
do {
  const seed = fixed ?? String(randomInt(2 ** 31));
  searches++;
  console.log(`fuzz: search ${searches}, seed ${seed}, ${runs} runs`);
  const r = spawnSync(process.execPath, ['scripts/test-home.mjs', process.execPath, '--test', '--test-timeout=0', '--test-reporter=spec', ...SEARCHES], {
    stdio: 'inherit',
    env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: String(runs) },
  });
  if (r.status !== 0) {
    console.log(`fuzz: counterexample found with seed ${seed} (above, shrunk). Replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`);
    console.log('fuzz: keep it as a named test beside the search that found it, then fix the code.');
    process.exit(1);
  }
} while (fixed === undefined && Date.now() < until);
console.log(`fuzz: ${searches} search(es) of ${runs} runs each found no counterexample`);
