import type { Services } from '../../host/services';
import { stateCategory, type StateCategory } from '../../model/instanceViewModel';
import { resolveInstance, runInstanceAction } from './target';

export interface StateChange {
  to: 'running' | 'stopped';
  /** The states the command applies to (its picker rule). */
  from: StateCategory[];
  verb: string;
  none: string;
  pending: string;
  failure: string;
}

/** Start and Stop differ only in the target state, the states they apply to and their words. */
export async function setInstanceState(services: Services, spec: StateChange, arg?: unknown): Promise<boolean> {
  const inst = await resolveInstance(services, arg, (i) => spec.from.includes(stateCategory(i)), spec);
  if (!inst) return false;
  return runInstanceAction(services, inst, spec.pending, spec.failure, async () => (await services.api()).setInstanceState(inst.id, spec.to));
}
