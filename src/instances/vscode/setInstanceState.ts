import type { Services } from '../../core/vscode/services';
import { stateCategory, type StateCategory } from '../../core/instanceWords';
import { guardedInstanceAction, resolveInstance, runInstanceAction } from '../../core/vscode/instanceTarget';

export interface StateChange {
  to: 'running' | 'stopped';
  /** The states the command applies to (its picker rule). */
  from: StateCategory[];
  verb: string;
  none: string;
  pending: string;
  failure: string;
  /** Runs after the service accepted the change (e.g. Start follows the instance until it runs). */
  after?: (id: number) => void;
}

/** Start and Stop differ only in the target state, the states they apply to and their words. */
export async function setInstanceState(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>,
  spec: StateChange,
  arg?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, (i) => spec.from.includes(stateCategory(i)), spec);
  if (!inst) return false;
  return guardedInstanceAction(services, inst, spec.to === 'running' ? 'Start' : 'Stop', async () => {
    const ok = await runInstanceAction(services, inst, spec.pending, spec.failure, async () => (await services.api()).setInstanceState(inst.id, spec.to));
    if (ok) spec.after?.(inst.id);
    return ok;
  });
}

/** Stop Instance, and each stop of Stop All Running. */
export function stopOneInstance(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>, arg?: unknown): Promise<boolean> {
  return setInstanceState(
    services,
    {
      to: 'stopped',
      from: ['running', 'loading'],
      verb: 'Stop Instance',
      none: 'No running instance to stop.',
      pending: 'Stopping…',
      failure: 'Could not stop',
    },
    arg,
  );
}
