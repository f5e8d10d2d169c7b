import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { tellDone } from '../../../core/vscode/statusMessage';

/** What a detail row of the Instances view carries (src/instances/vscode/instancesView.ts). */
interface DetailArg {
  kind?: unknown;
  key?: unknown;
  label?: unknown;
  value?: unknown;
  secret?: unknown;
}

/**
 * Copy Value on a detail row: its value as the row shows it (every secret in it already masked by
 * src/instances/detailRows.ts). A secret row (the Jupyter token) is never copied here: it has its
 * own command. Resolves the copied text.
 */
export async function copyDetailValue(_services: Services, arg?: unknown): Promise<string> {
  const node = (typeof arg === 'object' && arg !== null ? arg : {}) as DetailArg;
  if (node.kind !== 'detail' || typeof node.value !== 'string' || typeof node.key !== 'string') {
    throw new Error(vscode.l10n.t("Copy Value copies a detail row of the Instances view: expand an instance and use the row's context menu."));
  }
  if (node.secret === true || node.key === 'jupyter_token') {
    throw new Error(vscode.l10n.t('This row holds a secret: Copy Value never copies one. Use Copy Jupyter Token.'));
  }
  await vscode.env.clipboard.writeText(node.value);
  tellDone(vscode.l10n.t('{0} copied to the clipboard.', typeof node.label === 'string' ? node.label : node.key));
  return node.value;
}
