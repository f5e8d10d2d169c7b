// The one way every tier starts the simulator in-process (unit tests, bench), and the control
// client of a running one (the VS Code tier's runner starts it as a process: test/vscode/suite/sim.ts).
import { startSimulator, type RunningSim, type SimOptions } from '../../src/sim';
import { SimControl } from '../../src/sim/control';

/** What a test simulator starts with unless told otherwise: a free loopback port, test control, a 60 s boot, seed 1. */
export const TEST_SIM: SimOptions = { port: 0, testControl: true, bootSeconds: 60, seed: 1 };

/** A running simulator with its test-control client (clock, faults, outbox, reset). */
export type StartedSim = RunningSim & { ctl: SimControl };

/** Starts the simulator with exactly `opts` (the bench's figures) on a free loopback port unless `opts.port` says otherwise. */
export async function startSim(opts: SimOptions = {}): Promise<StartedSim> {
  const sim = await startSimulator({ port: 0, ...opts });
  return Object.assign(sim, { ctl: new SimControl(sim.url) });
}

/** Starts a test simulator: TEST_SIM, then `opts`. */
export function startTestSim(opts: SimOptions = {}): Promise<StartedSim> {
  return startSim({ ...TEST_SIM, ...opts });
}
