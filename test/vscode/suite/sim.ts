// Access to the simulator's test-control endpoints (/_sim/...) from integration tests.
import { SimControl } from '../../../src/sim/control';
import { simUrl } from './framework';

export { SimControl };

/** The control client (clock, faults, outbox, seed, reset) for the simulator the runner started. */
export function simControl(): SimControl {
  return new SimControl(simUrl());
}
