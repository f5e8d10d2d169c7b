// The money invariants, searched: fast-check generates the scripted service's every answer and
// visibility per read (fuzzService.ts) and the REAL create flow runs against it, then the watcher
// that resumes from the in-flight records. After each run: machines per click <= 1 unless the
// user chose to rent another; every created machine is ours in the list, in flight, or destroyed
// by us after a failed boot or the user's yes; nothing destroyed we did not create; no key in any
// log line. CI runs a fixed seed and a small budget; `npm run fuzz` runs long searches with random
// seeds (FUZZ_SEED, FUZZ_RUNS), and each counterexample it finds is kept in fuzzRegressions.test.ts.
import { test } from 'node:test';
import fc from 'fast-check';
import { checkRun, fuzzScript, runScript } from './fuzzService';

const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 3301;
const numRuns = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : 60;

test(`money invariants under generated service answers, visibility, user answers and restarts (seed ${seed}, ${numRuns} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(fuzzScript, async (s) => checkRun(await runScript(s))),
    { seed, numRuns, verbose: process.env.FUZZ_RUNS !== undefined ? 1 : 0 },
  );
});
