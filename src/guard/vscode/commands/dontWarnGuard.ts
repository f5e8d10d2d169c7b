// gpuRental.dontWarnGuard (node, id or { instanceId }): no more idle guard warnings for this
// instance (remembered across restarts; the guard itself still acts), and its warning on screen
// closes. Don't Warn Again in the warning runs it.
import type { Services } from '../../../core/vscode/services';
import type { Instance } from '../../../api/types';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { closeGuardWarning } from '../guardWarnings';

export async function dontWarnGuard(
  services: Pick<Services, 'api' | 'connection' | 'guard' | 'instances' | 'log'>,
  arg?: unknown,
): Promise<{ instanceId: number } | undefined> {
  const inst = await resolveInstance(services, arg, (i: Instance) => i.state === 'running', {
    verb: "Don't Warn Again (Idle Guard)",
    none: 'No running instance: idle guard warnings are about running instances.',
  });
  if (!inst) return undefined;
  await services.guard.dontWarn(inst.id);
  closeGuardWarning(inst.id);
  services.log.info(`guard: no more warnings for instance ${inst.id}`);
  return { instanceId: inst.id };
}
