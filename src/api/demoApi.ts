// The demo's one call that is not the service's: the fake GPU load of a simulated instance
// (POST /_sim/instances/{id}/gpu). Only the simulator answers it, in demo mode and with the
// account's own key; the service has no such path. Sent through the same pipeline as every
// other call (auth, redaction, errors), its answer read with the simple-result schema.
import type { ServiceApi } from './types';
import { invalid, positiveId, type Pipeline } from './pipeline';
import * as l10n from '@vscode/l10n';

/** Why `util` is not a GPU utilisation the simulator takes, or undefined when it is one. */
export function gpuLoadProblem(util: unknown): string | undefined {
  if (typeof util !== 'number' || !Number.isFinite(util) || util < 0 || util > 100) return l10n.t('a percentage from 0 to 100');
  return undefined;
}

export function demoApi(p: Pipeline): Pick<ServiceApi, 'setDemoGpuLoad'> {
  return {
    async setDemoGpuLoad(id, util, o) {
      positiveId(id, 'setDemoGpuLoad');
      const problem = gpuLoadProblem(util);
      if (problem) throw invalid('setDemoGpuLoad', [l10n.t('util: must be {0}, got {1}', problem, String(util))]);
      return p.send({ method: 'POST', path: `/_sim/instances/${id}/gpu`, body: { util: [util] }, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
  };
}
