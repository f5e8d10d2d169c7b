// One test simulator shared by the tests of a file (node:test hooks; the bench uses sim.ts alone).
import type { SimOptions } from '../../src/sim';
import { startTestSim, type StartedSim } from './sim';
import { perFile, type PerFile } from './perFile';

/**
 * One test simulator for a test file: started before its tests, reset before each test, closed
 * after. Read it through the returned holder's `current` inside a test; `onStarted` gets it as
 * soon as it runs (a top-level before() hook may run at once, so a second hook cannot wait for it).
 */
export function useTestSim(opts: SimOptions = {}, onStarted?: (sim: StartedSim) => void): PerFile<StartedSim> {
  return perFile('the test simulator', () => startTestSim(opts), { ...(onStarted ? { onStarted } : {}), beforeEach: (sim) => sim.ctl.reset() });
}
