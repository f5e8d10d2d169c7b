// The money invariant over every late-machine scenario (lateScenarios.ts): a machine invisible for
// 90 s, 5 min or 30 min, a window reload mid-way, 404/410/429/5xx storms on show and list, the
// create answer lost. Each ends with exactly one machine for one click, tracked and adopted.
// (The invariant over every wire fault is in money.test.ts.)
import { test } from 'node:test';
import { useFlowSim } from './flowHarness';
import { LATE_SCENARIOS, runLateScenario } from './lateScenarios';

useFlowSim();

test('money invariant: a machine that appears late (90 s, 5 min, 30 min, a reload mid-way, 404/410/429/5xx storms on show and list, the create answer lost) is one machine for one click, tracked and adopted', async () => {
  for (const s of LATE_SCENARIOS) await runLateScenario(s);
});
