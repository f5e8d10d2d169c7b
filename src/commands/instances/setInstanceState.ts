import type { Services } from '../../model/services';
import { stateCategory, type StateCategory } from '../../model/instanceViewModel';
import { resolveInstance, runInstanceAction } from './target';

/** Start and Stop differ only in the target state, the states they apply to and their words. */
export function setInstanceStateCommand(
  services: Services,
  spec: { to: 'running' | 'stopped'; from: StateCategory[]; verb: string; none: string; pending: string; failure: string },
) {
  return async (arg?: unknown): Promise<boolean> => {
    const inst = await resolveInstance(services, arg, (i) => spec.from.includes(stateCategory(i)), spec);
    if (!inst) return false;
    return runInstanceAction(services, inst, spec.pending, spec.failure, async () => (await services.api()).setInstanceState(inst.id, spec.to));
  };
}
