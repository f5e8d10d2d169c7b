import * as vscode from 'vscode';
import type { Services } from '../../host/services';
import { instanceDetails, instanceName } from '../../model/instanceViewModel';
import { resolveInstance } from './target';

/** Every set field of the instance in a read-only Markdown document (secrets masked). */
export async function showInstanceDetails(services: Services, arg?: unknown): Promise<vscode.TextDocument | undefined> {
  const inst = await resolveInstance(services, arg, () => true, {
    verb: 'Show Instance Details',
    none: 'You have no instances yet.',
  });
  if (!inst) return undefined;
  const rows = instanceDetails(inst).map((d) => `| ${d.label} | ${d.value.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  const content = [`# ${instanceName(inst)} (#${inst.id})`, '', '| Field | Value |', '|---|---|', ...rows, ''].join('\n');
  const doc = await vscode.workspace.openTextDocument({ content, language: 'markdown' });
  await vscode.window.showTextDocument(doc, { preview: true });
  return doc;
}
