// The account's burn rate, GET /api/v0/users/spend-rate: the service's own figure where it
// answers; undefined where it does not (a 404: older servers and the published API lack it, or
// an answer without its rates), and then the caller computes the rate from the instance list.
import type { CallOptions } from './types';
import type { Pipeline } from './pipeline';
import type { SpendRate } from './spendRateSchema';
import { isApiError } from './errors';

export type { SpendRate };

export const SPEND_RATE_PATH = '/api/v0/users/spend-rate/';

export interface SpendRateApi {
  /** The service's $/h for the account, stopped disks and volumes included; undefined where it has no such figure. */
  spendRate(o?: CallOptions): Promise<SpendRate | undefined>;
}

export function spendRateApi(p: Pipeline): SpendRateApi {
  return {
    async spendRate(o) {
      try {
        return await p.send({ method: 'GET', path: SPEND_RATE_PATH, schema: (s) => s.spendRateSchema }, o);
      } catch (e) {
        if (isApiError(e) && e.kind === 'http' && e.status === 404) return undefined;
        throw e;
      }
    },
  };
}
