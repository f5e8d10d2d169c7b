import type { Services } from '../../model/services';
import { stateCategory } from '../../model/instanceViewModel';
import { resolveInstance, runInstanceAction } from './target';

export function startInstanceCommand(services: Services) {
  return async (arg?: unknown): Promise<boolean> => {
    const inst = await resolveInstance(services, arg, (i) => ['stopped', 'failed'].includes(stateCategory(i)), {
      verb: 'Start Instance',
      none: 'No stopped instance to start.',
    });
    if (!inst) return false;
    return runInstanceAction(services, inst, 'Starting…', 'Could not start', async () =>
      (await services.api()).setInstanceState(inst.id, 'running'),
    );
  };
}
