// Template files in the workspace: finding and reading them (unsaved editor text first) and
// the TemplateContext (variables, secrets, onstartFile) that validation needs.
import * as vscode from 'vscode';
import type { Services } from './services';
import { describeTemplateText, type TemplateFileInfo } from '../templates/discovery';
import { loadTemplate, type LoadedTemplate, type TemplateContext } from '../templates/validate';
import { templateSecretKey } from '../templates/variables';
import { readSettings } from './settings';

export async function findTemplates(): Promise<TemplateFileInfo[]> {
  const { glob } = readSettings().templates;
  const uris = await vscode.workspace.findFiles(glob, '**/node_modules/**', 200);
  const out: TemplateFileInfo[] = [];
  for (const uri of uris) {
    const rel = vscode.workspace.asRelativePath(uri, false);
    const name = uri.path.split('/').pop()?.replace(/\.jsonc?$/, '') ?? rel;
    try {
      out.push(describeTemplateText(await readText(uri), uri.toString(), rel, name));
    } catch {
      out.push({ file: uri.toString(), relativePath: rel, name, broken: true });
    }
  }
  return out.sort((a, b) => a.relativePath.localeCompare(b.relativePath));
}

/** The editor's unsaved text when the file is open, else the file on disk. */
export async function readText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

/** `template` argument: a vscode.Uri, a URI string, or a workspace-relative path. */
export async function resolveTemplateUri(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg !== 'string' || !arg.trim()) return undefined;
  const s = arg.trim();
  if (/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(s) && !/^[a-zA-Z]:[\\/]/.test(s)) return vscode.Uri.parse(s);
  if (s.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(s)) return vscode.Uri.file(s);
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    const uri = vscode.Uri.joinPath(f.uri, ...s.split(/[\\/]/));
    try {
      await vscode.workspace.fs.stat(uri);
      return uri;
    } catch {
      // try the next folder
    }
  }
  return undefined;
}

export function templateContext(services: Services, uri: vscode.Uri): TemplateContext {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return {
    ...(folder ? { workspaceFolder: folder.uri.scheme === 'file' ? folder.uri.fsPath : folder.uri.path } : {}),
    env: process.env,
    secret: (name) => services.secrets.get(templateSecretKey(name)),
    readFile: async (rel) => {
      if (!folder) return undefined;
      try {
        return await readText(vscode.Uri.joinPath(folder.uri, ...rel.split(/[\\/]/)));
      } catch {
        return undefined;
      }
    },
  };
}

export async function loadTemplateUri(services: Services, uri: vscode.Uri): Promise<LoadedTemplate> {
  return loadTemplate(await readText(uri), templateContext(services, uri));
}

/** Quick pick of discovered templates, the active editor's template first. */
export async function pickTemplate(title: string): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const found = await findTemplates();
  if (found.length === 0) {
    const choice = await vscode.window.showInformationMessage(
      `No workspace templates found (looking for ${readSettings().templates.glob}). Create one with "GPU Rental: New Template".`,
      'New Template',
    );
    if (choice === 'New Template') await vscode.commands.executeCommand('gpuRental.newTemplate');
    return undefined;
  }
  const items = found.map((f) => ({
    label: f.name,
    description: f.relativePath,
    detail: f.broken ? '$(warning) Cannot be parsed: open it to fix the JSON' : f.description,
    uri: vscode.Uri.parse(f.file),
  }));
  items.sort((a, b) => Number(b.uri.toString() === active?.toString()) - Number(a.uri.toString() === active?.toString()));
  if (items.length === 1 && !found[0]!.broken) return items[0]!.uri;
  return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true }))?.uri;
}
