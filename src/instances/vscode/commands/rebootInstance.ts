// Reboot (stop + start keeping the GPU) and Recycle (a fresh image pull in place: the disk's
// data is lost). Both confirm; scripts may pass `{ id, skipConfirmation: true }`.
import * as vscode from 'vscode';
import type { Instance } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { gpuText, instanceName, isOutbid, stateCategory } from '../../../core/instanceWords';
import { guardedInstanceAction, resolveInstance, runInstanceAction } from '../../../core/vscode/instanceTarget';
import { confirmDestructive } from '../../../core/vscode/confirmDestructive';
import { skipsConfirmation } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';

// Honoured only when the user allows unattended calls (gpuRental.scripting.allowUnattended).
const skipped = (services: Pick<Services, 'log' | 'settings'>, arg: unknown, what: string) => skipsConfirmation(consentOf(services), arg, what);

/** Reboot applies to running (or starting) instances and to a container that exited. */
export function canReboot(i: Instance): boolean {
  return !isOutbid(i) && (stateCategory(i) === 'running' || stateCategory(i) === 'loading' || i.state === 'exited');
}

/** Recycle applies to every instance the service still runs or could run: not to a user-stopped or outbid one. */
export function canRecycle(i: Instance): boolean {
  return !isOutbid(i) && stateCategory(i) !== 'stopped' && i.state !== 'offline' && i.state !== 'unknown';
}

export async function rebootInstance(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'settings' | 'showLog'>,
  arg?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, canReboot, { verb: 'Reboot Instance', none: 'No running instance to reboot.' });
  if (!inst) return false;
  return guardedInstanceAction(services, inst, 'Reboot', () => confirmAndReboot(services, inst, arg));
}

async function confirmAndReboot(
  services: Pick<Services, 'api' | 'instances' | 'log' | 'settings' | 'showLog'>,
  inst: Instance,
  arg: unknown,
): Promise<boolean> {
  if (!skipped(services, arg, 'Reboot')) {
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Reboot "{0}" ({1})?', instanceName(inst), [`#${inst.id}`, gpuText(inst)].filter(Boolean).join(', ')),
      {
        modal: true,
        detail: vscode.l10n.t(
          'The container is stopped and started again on the same machine: running programs and SSH sessions end; the disk and the GPU are kept. Its SSH port may change.',
        ),
      },
      vscode.l10n.t('Reboot'),
    );
    if (answer !== vscode.l10n.t('Reboot')) return false;
  }
  return runInstanceAction(services, inst, 'Rebooting…', 'Could not reboot', async () => (await services.api()).rebootInstance(inst.id));
}

export async function recycleInstance(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'settings' | 'showLog'>,
  arg?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, canRecycle, { verb: 'Recycle Instance', none: 'No instance to recycle.' });
  if (!inst) return false;
  return guardedInstanceAction(services, inst, 'Recycle', () => confirmAndRecycle(services, inst, arg));
}

async function confirmAndRecycle(
  services: Pick<Services, 'api' | 'instances' | 'log' | 'settings' | 'showLog'>,
  inst: Instance,
  arg: unknown,
): Promise<boolean> {
  if (!skipped(services, arg, 'Recycle')) {
    const confirmed = await confirmDestructive({
      question: `Recycle "${instanceName(inst)}" (#${inst.id})? Everything on its disk is lost.`,
      detail: vscode.l10n.t(
        'The container is destroyed and recreated in place from a fresh pull of {0}: all files written since it started (outside a mounted volume) are deleted, and the onstart script runs again. The machine and its GPU are kept. This cannot be undone.',
        inst.image_uuid ?? 'its image',
      ),
      action: 'Recycle and Lose Data',
    });
    if (!confirmed) return false;
  }
  return runInstanceAction(services, inst, 'Recycling…', 'Could not recycle', async () => (await services.api()).recycleInstance(inst.id));
}
