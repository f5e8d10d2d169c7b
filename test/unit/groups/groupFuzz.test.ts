// The money invariants of a group, searched (groupFuzzService.ts): one click ends with exactly N
// machines or none, never N+1, and never a forgotten one, under every fault of the create flow's
// sweep. CI runs a fixed seed with a small budget; FUZZ_SEED and FUZZ_RUNS as for createFuzz.
import { test } from 'node:test';
import fc from 'fast-check';
import { checkGroupRun, groupScript, runGroupScript } from './groupFuzzService';

const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 3701;
const numRuns = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : 40;

test(`a group is N machines or none under generated faults (seed ${seed}, ${numRuns} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(groupScript, async (s) => checkGroupRun(await runGroupScript(s))),
    { seed, numRuns, verbose: process.env.FUZZ_RUNS !== undefined ? 1 : 0 },
  );
});
