import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { detailsUri, registerInstanceDetails, rememberFullRecord } from '../instanceDetailsDocument';
import { fullRecord } from '../../fullRecord';
import { resolveInstance } from '../../../core/vscode/instanceTarget';

/**
 * (A lazily loaded bundle.) Every set field of the instance in a read-only Markdown document, shown rendered (secrets masked), with its
 * cost so far; the document follows the instance (src/instances/vscode/instanceDetailsDocument.ts).
 */
export async function showInstanceDetails(services: Services, arg?: unknown): Promise<vscode.TextDocument | undefined> {
  const row = await resolveInstance(services, arg, () => true, {
    verb: 'Show Instance Details',
    none: 'You have no instances yet.',
  });
  if (!row) return undefined;
  // Every field: the full record (the list carries only the view's columns).
  rememberFullRecord(await fullRecord(() => services.api(), row, services.log));
  registerInstanceDetails(services);
  const doc = await vscode.workspace.openTextDocument(detailsUri(row));
  // Rendered (the table, long values folded), not raw Markdown; the source stays a click away
  // (the preview's "Open Source"). Without the built-in Markdown extension: the text itself.
  try {
    await vscode.commands.executeCommand('markdown.showPreview', doc.uri);
  } catch (e) {
    services.log.debug(`details: no Markdown preview (${(e as Error).message}); showing the text`);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
  return doc;
}
