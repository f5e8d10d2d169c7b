import type { Instance } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { currentRate, formatRate } from '../../../core/rates';
import { gpuText, instanceName } from '../../../core/instanceWords';
import { guardedInstanceAction, resolveInstance, runInstanceAction } from '../../../core/vscode/instanceTarget';
import { confirmDestructive } from '../../../core/vscode/confirmDestructive';
import { background } from '../../../core/background';
import { skipsConfirmation } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';

/**
 * Destroy after a confirmation naming the instance and its cost (Enter cancels). Scripts and tests
 * may pass `{ id, skipConfirmation: true }` to skip the prompt, honoured only when the user allows
 * unattended calls (gpuRental.scripting.allowUnattended).
 */
export async function destroyInstance(
  services: Pick<Services, 'api' | 'connection' | 'costs' | 'instanceGone' | 'instances' | 'log' | 'settings' | 'showLog'>,
  arg?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, () => true, {
    verb: 'Destroy Instance',
    none: 'You have no instances to destroy.',
  });
  if (!inst) return false;
  return guardedInstanceAction(services, inst, 'Destroy', () => confirmAndDestroy(services, inst, arg));
}

async function confirmAndDestroy(
  services: Pick<Services, 'api' | 'costs' | 'instanceGone' | 'instances' | 'log' | 'settings' | 'showLog'>,
  inst: Instance,
  arg: unknown,
): Promise<boolean> {
  const skip = skipsConfirmation(consentOf(services), arg, 'Destroy');
  if (!skip) {
    const confirmed = await confirmDestructive({
      question: `Destroy "${instanceName(inst)}" (${[`#${inst.id}`, gpuText(inst), `now ${formatRate(currentRate(inst))}`].filter(Boolean).join(', ')})?`,
      detail: [services.costs.line(inst), 'Its disk and all data on it are deleted and billing stops. This cannot be undone.'].filter(Boolean).join('\n'),
      action: 'Destroy',
    });
    if (!confirmed) return false;
  }
  const ok = await runInstanceAction(services, inst, 'Destroying…', 'Could not destroy', async () => (await services.api()).destroyInstance(inst.id));
  if (ok) {
    services.instances.remove(inst.id);
    background(services.instanceGone.destroyed(inst.id), services.log, 'forgetting the records of the destroyed instance');
  }
  return ok;
}
