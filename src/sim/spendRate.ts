// GET /api/v0/users/spend-rate (service-today.md section 11): what the account is billed per hour
// now, stopped disks included. The today era only: the seed era's server has no such path (a
// plain 404, as an older server answers), so clients compute the rate themselves there.
import { fail } from './simError';
import { instanceComputeHour, instanceStorageHour, type SimState } from './state';

interface Reply {
  status: number;
  body: unknown;
  /** A plain-text body (the seed era's 404). */
  text?: boolean;
}

const r = (x: number) => Math.round(x * 1e6) / 1e6;

export function routeSpendRate(state: SimState, method: string, path: string): Reply | undefined {
  if (path !== '/api/v0/users/spend-rate') return undefined;
  if (state.era !== 'today') return { status: 404, body: 'Not Found', text: true };
  if (method !== 'GET') throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}; use GET.`);
  let gpu = 0;
  let storage = 0;
  for (const inst of state.instances.values()) {
    // Storage bills in every state until destroyed; compute while it runs (as the ledger accrues it).
    storage += instanceStorageHour(inst);
    if (inst.intended === 'running' && !inst.failure && !inst.outbid && !inst.bootFault) gpu += instanceComputeHour(inst);
  }
  return {
    status: 200,
    body: {
      gpu_cost_per_hour: r(gpu),
      container_storage_cost_per_hour: r(storage),
      // The simulator keeps no volumes apart from their instances.
      volume_storage_cost_per_hour: 0,
      has_active_resources: state.instances.size > 0,
    },
  };
}
