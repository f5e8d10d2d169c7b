// gpuRental.snoozeGuard ({ instanceId, minutes }): keeps an instance running for a while although
// its idle guard would act (writes the watchdog's snooze file over SSH); Keep Running 1 h in the
// guard's warning runs it too. Without a watchdog only this window's warnings pause.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import type { Instance } from '../../../api/types';
import type { SnoozeResult } from '../../../core/guardPort';
import { describeError } from '../../../core/describeError';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { CommandFailure, fixByCommand } from '../../../core/vscode/commandFailure';
import { snoozeFailedText } from '../guardWarningText';

export async function snoozeGuard(
  services: Pick<Services, 'api' | 'connection' | 'guard' | 'instances' | 'log'>,
  arg?: unknown,
): Promise<SnoozeResult | undefined> {
  const raw = arg && typeof arg === 'object' ? (arg as { minutes?: unknown }).minutes : undefined;
  let minutes = 60;
  if (raw !== undefined) {
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 10080)
      throw new CommandFailure(vscode.l10n.t('Keep Running needs "minutes" as a whole number from 0 (end the snooze) to 10080 (a week).'));
    minutes = raw;
  }
  const inst = await resolveInstance(services, arg, (i: Instance) => i.state === 'running', {
    verb: 'Keep Running (Snooze the Idle Guard)',
    none: 'No running instance to keep running.',
  });
  if (!inst) return undefined;
  try {
    return await services.guard.snooze(inst.id, minutes);
  } catch (e) {
    // Told at once, with what to do, before the guard acts: never a silent failure.
    const msg = snoozeFailedText(inst.label ?? `#${inst.id}`, describeError(e), services.guard.plannedAct(inst.id));
    services.log.warn(`guard: ${msg}`);
    throw new CommandFailure(msg, [
      fixByCommand(vscode.l10n.t('Open Terminal'), 'gpuRental.openTerminal', inst.id),
      fixByCommand(vscode.l10n.t('Stop Now'), 'gpuRental.stopInstance', inst.id),
    ]);
  }
}
