// Template files in the workspace: finding and reading them (unsaved editor text first) and
// the TemplateContext (variables, secrets, onstartFile) that validation needs.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { describeTemplateText, type TemplateFileInfo } from '../templateDiscovery';
import { cachedServerOnstart, loadTemplate, type LoadedTemplate, type TemplateContext } from '../templateValidation';
import { templateSecretKey } from '../templateVariables';
import { readTemplateGlob } from './templateGlobSetting';
import type { Offer } from '../../api/types';
import { offerSatisfies } from '../offerFit';
import { assertTemplatesReadable, MANAGE_TRUST, templatesRestrictedText } from '../templateTrust';
import { CommandFailure, fixByCommand, type FixAction } from '../../core/vscode/commandFailure';

/** The workspace's template files; none in Restricted Mode (templateTrust.ts). */
export async function findTemplates(): Promise<TemplateFileInfo[]> {
  if (!vscode.workspace.isTrusted) return [];
  const glob = readTemplateGlob();
  const uris = await vscode.workspace.findFiles(glob, '**/node_modules/**', 200);
  const out: TemplateFileInfo[] = [];
  for (const uri of uris) {
    const rel = vscode.workspace.asRelativePath(uri, false);
    const name =
      uri.path
        .split('/')
        .pop()
        ?.replace(/\.jsonc?$/, '') ?? rel;
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

/** Service templates' start scripts for this session, per service URL: read once, when a template names one. */
const serverScripts = new Map<string, (hashId: string) => Promise<string | undefined>>();

function serverOnstartOf(services: Pick<Services, 'api' | 'connection'>): (hashId: string) => Promise<string | undefined> {
  const url = services.connection().baseUrl;
  let read = serverScripts.get(url);
  if (!read) {
    read = cachedServerOnstart(async (h) => (await (await services.api()).searchTemplates({ filters: { hash_id: { eq: h } } }))[0]);
    serverScripts.set(url, read);
  }
  return read;
}

export function templateContext(services: Pick<Services, 'api' | 'connection' | 'secrets'>, uri: vscode.Uri): TemplateContext {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return {
    // A template renting with a service template gets its guard diagnostics from that template's onstart.
    serverOnstart: (hashId) => serverOnstartOf(services)(hashId),
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

export async function loadTemplateUri(services: Pick<Services, 'api' | 'connection' | 'secrets'>, uri: vscode.Uri): Promise<LoadedTemplate> {
  assertTemplatesReadable(vscode.workspace.isTrusted);
  return loadTemplate(await readText(uri), templateContext(services, uri));
}

/** The template file `arg` names (Create from Template, Create Group); throws for the command's reporter when there is none. */
export async function requireTemplateUri(arg: unknown): Promise<vscode.Uri> {
  const uri = await resolveTemplateUri(arg);
  if (!uri)
    throw new CommandFailure(
      vscode.l10n.t(
        'Template "{0}" was not found in the workspace. Check the path (relative to the workspace folder, e.g. .gpu/my.json) and try again.',
        String(arg ?? ''),
      ),
    );
  return uri;
}

/** The fix button of a template with problems. */
export function openTemplateFix(uri: vscode.Uri): FixAction {
  return { title: vscode.l10n.t('Open Template'), run: () => vscode.window.showTextDocument(uri) };
}

/**
 * In Restricted Mode: tells the user templates are not read (with a way to trust the folder) and
 * answers true; in a trusted workspace answers false at once.
 */
export async function templatesRestricted(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return false;
  const manage = MANAGE_TRUST.label();
  const choice = await vscode.window.showInformationMessage(templatesRestrictedText(), manage);
  if (choice === manage) await vscode.commands.executeCommand(MANAGE_TRUST.command);
  return true;
}

/** For "Rent this offer with which template?": the offer, and how to read a template to judge it. */
export interface OfferFitContext {
  offer: Offer | number;
  load(uri: vscode.Uri): Promise<LoadedTemplate>;
}

type TemplateItem = vscode.QuickPickItem & { uri?: vscode.Uri; order: number };

/**
 * Quick pick of discovered templates, the active editor's template first. With an offer: the
 * templates it fits first, then the others marked with why not, then the broken ones marked
 * broken (each group under its own separator).
 */
// Throws (for the command's reporter, with New Template) when the workspace has no template.
export async function pickTemplate(title: string, fit?: OfferFitContext): Promise<vscode.Uri | undefined> {
  if (await templatesRestricted()) return undefined;
  const active = vscode.window.activeTextEditor?.document.uri;
  const found = await findTemplates();
  if (found.length === 0)
    throw new CommandFailure(
      vscode.l10n.t('No workspace templates found (looking for {0}). Create one with "GPU Rental: New Template…".', readTemplateGlob()),
      [fixByCommand(vscode.l10n.t('New Template'), 'gpuRental.newTemplate')],
    );
  const offer = fit && typeof fit.offer === 'object' ? fit.offer : undefined;
  const items: TemplateItem[] = await Promise.all(
    found.map(async (f): Promise<TemplateItem> => {
      const uri = vscode.Uri.parse(f.file);
      const base = { label: f.name, description: f.relativePath, uri };
      if (f.broken) return { ...base, detail: vscode.l10n.t('$(error) Broken: cannot be parsed; open it to fix the JSON'), order: 2 };
      if (!fit) return { ...base, detail: f.description, order: 0 };
      const loaded = await fit.load(uri).catch(() => undefined);
      const errors = loaded?.problems.filter((p) => p.severity === 'error') ?? [];
      if (!loaded?.template) {
        const first = errors[0];
        return {
          ...base,
          detail: vscode.l10n.t(
            '$(error) Broken: {0} problem{1}{2}',
            errors.length,
            errors.length === 1 ? '' : 's',
            first ? ` (${first.where}: ${first.message})` : '',
          ),
          order: 2,
        };
      }
      const reasons = offer ? offerSatisfies(loaded.template, offer) : [];
      if (reasons.length) return { ...base, detail: vscode.l10n.t('$(circle-slash) Does not fit this offer: {0}', reasons.join('; ')), order: 1 };
      return { ...base, detail: f.description, order: 0 };
    }),
  );
  const isActive = (i: TemplateItem) => Number(i.uri?.toString() === active?.toString());
  items.sort((a, b) => a.order - b.order || isActive(b) - isActive(a));
  const usable = items.filter((i) => i.order === 0);
  if (usable.length === 1 && items.length === 1) return usable[0]!.uri;
  const groups = fit ? ['Fits this offer', 'Does not fit this offer', 'Broken'] : [];
  const shown: TemplateItem[] = [];
  for (const i of items) {
    const group = groups[i.order];
    if (group && shown[shown.length - 1]?.order !== i.order) shown.push({ label: group, kind: vscode.QuickPickItemKind.Separator, order: i.order });
    shown.push(i);
  }
  return (await vscode.window.showQuickPick(shown, { title, matchOnDescription: true, matchOnDetail: true }))?.uri;
}
