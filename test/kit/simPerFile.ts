// One test simulator shared by the tests of a file (node:test hooks; the bench uses sim.ts alone).
import { after, before, beforeEach } from 'node:test';
import type { SimOptions } from '../../src/sim';
import { startTestSim, type StartedSim } from './sim';

/**
 * One test simulator for a test file: started before its tests, reset before each test, closed
 * after. Read it through the returned holder's `current` inside a test; `onStarted` gets it as
 * soon as it runs (a top-level before() hook may run at once, so a second hook cannot wait for it).
 */
export function useTestSim(opts: SimOptions = {}, onStarted?: (sim: StartedSim) => void): { readonly current: StartedSim } {
  let started: StartedSim | undefined;
  before(async () => {
    started = await startTestSim(opts);
    onStarted?.(started);
  });
  after(async () => {
    await started?.close();
  });
  beforeEach(async () => {
    await started?.ctl.reset();
  });
  return {
    get current(): StartedSim {
      if (!started) throw new Error('the test simulator is not started yet: read it inside a test');
      return started;
    },
  };
}
