import * as vscode from 'vscode';
import { CommandFailure } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { instanceName } from '../../../core/instanceWords';
import { resolveInstance, runInstanceAction } from '../../../core/vscode/instanceTarget';

const MAX_LABEL = 128;

/** (instance node or id, optional new label): without a label, asks for one. */
export async function renameInstance(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>,
  arg?: unknown,
  label?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, () => true, {
    verb: 'Rename Instance',
    none: 'You have no instances to rename.',
  });
  if (!inst) return false;
  let next = typeof label === 'string' ? label.trim() : undefined;
  if (next === undefined) {
    next = (
      await vscode.window.showInputBox({
        title: vscode.l10n.t('Rename {0}', instanceName(inst)),
        prompt: vscode.l10n.t('New label for the instance (shown in the GPU Rental view and on the marketplace).'),
        value: inst.label ?? '',
        placeHolder: vscode.l10n.t('e.g. llm-finetune'),
        validateInput: (v) => (v.trim().length > MAX_LABEL ? `At most ${MAX_LABEL} characters.` : undefined),
      })
    )?.trim();
    if (next === undefined) return false;
  }
  if (next.length > MAX_LABEL) {
    throw new CommandFailure(vscode.l10n.t('An instance label has at most {0} characters. Choose a shorter label.', MAX_LABEL));
  }
  const newLabel = next;
  return runInstanceAction(services, inst, 'Renaming…', 'Could not rename', async () => (await services.api()).setInstanceLabel(inst.id, newLabel));
}
