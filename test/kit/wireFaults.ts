// One case per wire fault the simulator can inject, for the fault sweeps of the create flow and of
// the agent tools: a new kind in SimFault fails the typecheck until it is listed here.
import type { SimFault, WireFaultKind } from '../../src/sim/control';

export const WIRE_FAULTS: Record<WireFaultKind, (path: string) => SimFault> = {
  http_error: (path) => ({ kind: 'http_error', status: 503, path }),
  slow: (path) => ({ kind: 'slow', ms: 700, path }), // longer than the client's 300 ms: a timeout
  malformed: (path) => ({ kind: 'malformed', path }),
  truncated: (path) => ({ kind: 'truncated', path }),
  wrong_shape: (path) => ({ kind: 'wrong_shape', path }),
  huge: (path) => ({ kind: 'huge', bytes: 9 * 1024 * 1024, path }),
  reset: (path) => ({ kind: 'reset', path }),
  hidden: () => ({ kind: 'hidden', seconds: 45 }),
  unfiltered: () => ({ kind: 'unfiltered' }), // the v1 list answers every row, whatever the filter
  refused: (path) => ({ kind: 'refused', msg: 'Refused: not carried out.', path }), // 200 {"success": false, "msg"}
};
