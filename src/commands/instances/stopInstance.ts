import type { Services } from '../../model/services';
import { stateCategory } from '../../model/instanceViewModel';
import { resolveInstance, runInstanceAction } from './target';

export function stopInstanceCommand(services: Services) {
  return async (arg?: unknown): Promise<boolean> => {
    const inst = await resolveInstance(services, arg, (i) => ['running', 'loading'].includes(stateCategory(i)), {
      verb: 'Stop Instance',
      none: 'No running instance to stop.',
    });
    if (!inst) return false;
    return runInstanceAction(services, inst, 'Stopping…', 'Could not stop', async () =>
      (await services.api()).setInstanceState(inst.id, 'stopped'),
    );
  };
}
