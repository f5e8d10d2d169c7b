import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { tellDone } from '../../../core/vscode/statusMessage';

/** The only way the token leaves the extension: straight to the clipboard. */
export async function copyJupyterToken(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log'>, arg?: unknown): Promise<boolean> {
  const inst = await resolveInstance(services, arg, (i) => !!i.jupyter_token, {
    verb: 'Copy Jupyter Token',
    none: 'None of your instances has a Jupyter token.',
  });
  if (!inst?.jupyter_token) return false;
  await vscode.env.clipboard.writeText(inst.jupyter_token);
  tellDone(vscode.l10n.t('Jupyter token copied to the clipboard.'));
  return true;
}
