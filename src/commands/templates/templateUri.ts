// Which files are templates, by the glob setting. Kept apart from workspace.ts so the
// activation bundle can tell a template from other files without loading validation.
import * as vscode from 'vscode';
import { DEFAULT_TEMPLATE_GLOB, matchesGlob } from '../../templates/discovery';

export function templateSettings(): { glob: string; maxAttempts: number } {
  const c = vscode.workspace.getConfiguration('gpuRental');
  const glob = c.get<string>('templateGlob')?.trim() || DEFAULT_TEMPLATE_GLOB;
  const n = c.get<number>('createMaxAttempts') ?? 3;
  return { glob, maxAttempts: Number.isInteger(n) && n >= 1 && n <= 10 ? n : 3 };
}

/** Is this file a template by the glob setting (relative to its workspace folder)? */
export function isTemplateUri(uri: vscode.Uri): boolean {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return false;
  return matchesGlob(vscode.workspace.asRelativePath(uri, false), templateSettings().glob);
}

