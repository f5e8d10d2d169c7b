import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { DETAILS_SCHEME, detailsPath } from '../../model/instanceViewModel';
import { resolveInstance } from './target';

/**
 * Every set field of the instance in a read-only Markdown document (secrets masked), with its
 * cost so far; the document follows the instance (src/views/instanceDetailsDocument.ts).
 */
export async function showInstanceDetails(services: Services, arg?: unknown): Promise<vscode.TextDocument | undefined> {
  const inst = await resolveInstance(services, arg, () => true, {
    verb: 'Show Instance Details',
    none: 'You have no instances yet.',
  });
  if (!inst) return undefined;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: DETAILS_SCHEME, path: detailsPath(inst) }));
  await vscode.window.showTextDocument(doc, { preview: true });
  return doc;
}
