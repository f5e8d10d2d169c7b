// Browse Server Templates…: the service's own templates (recommended first, by name) with their
// image, runtype, ports and onstart; rent one by its template_hash_id, or save a workspace
// template that references it.
import * as vscode from 'vscode';
import { CommandFailure, OPEN_FOLDER, failedTo } from '../../../core/vscode/commandFailure';
import type { ServerTemplate } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { describeError } from '../../../core/describeError';
import { SERVER_TEMPLATE_SCHEME, sortTemplates, templateFacts, templateSlug, workspaceTemplateText } from '../../serverTemplates';
import { ensureSignedIn } from '../../../core/vscode/signedIn';

type Action = 'rent' | 'save' | 'open';

/** Scripts: `{ hashId, action }` skips both pick lists; `offerId` and `confirm: false` go to the create flow. */
interface BrowseArgs {
  hashId?: unknown;
  action?: unknown;
  offerId?: unknown;
  confirm?: unknown;
}

const TITLE = 'GPU Rental: Browse Server Templates';

async function lookUp(services: Pick<Services, 'api'>, text: string): Promise<ServerTemplate[]> {
  const api = await services.api();
  const v = text.trim();
  const byHash = /^[0-9a-f]{16,64}$/i.test(v) ? await api.searchTemplates({ filters: { hash_id: { eq: v } } }) : [];
  return byHash.length ? byHash : api.searchTemplates({ filters: { name: { eq: v } }, orderBy: 'name' });
}

async function pickTemplate(services: Pick<Services, 'api' | 'serverTemplates'>): Promise<ServerTemplate | undefined> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { t?: ServerTemplate; lookup?: true }>();
  qp.title = TITLE;
  qp.placeholder = 'Loading the recommended templates…';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  const lookupItem = { label: vscode.l10n.t('$(search) Look up by exact name or hash id…'), alwaysShow: true, lookup: true as const };
  qp.items = [lookupItem];
  qp.show();
  const load = (async () => {
    try {
      const list = sortTemplates(await (await services.api()).searchTemplates({ filters: { recommended: { eq: true } } }));
      list.forEach((t) => services.serverTemplates.set(t.hash_id, t));
      qp.items = [
        lookupItem,
        { label: vscode.l10n.t('Recommended by the service'), kind: vscode.QuickPickItemKind.Separator },
        ...list.map((t) => ({ label: t.name, description: t.desc ?? undefined, detail: templateFacts(t), t })),
      ];
      qp.placeholder = `${list.length} recommended template${list.length === 1 ? '' : 's'}: type to filter`;
    } catch (e) {
      qp.placeholder = `Could not load the templates: ${describeError(e)}`;
    } finally {
      qp.busy = false;
    }
  })();
  const picked = await new Promise<(vscode.QuickPickItem & { t?: ServerTemplate; lookup?: true }) | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]));
    qp.onDidHide(() => resolve(undefined));
  });
  qp.dispose();
  await load;
  if (!picked) return undefined;
  if (picked.t) return picked.t;
  const text = await vscode.window.showInputBox({
    title: TITLE,
    prompt: vscode.l10n.t("A template's exact name or its hash id (from the console or `vastai search templates`)"),
    placeHolder: vscode.l10n.t('e.g. PyTorch (cuDNN Devel)'),
    validateInput: (v) => (v.trim() ? undefined : 'Enter a name or a hash id.'),
  });
  if (!text) return undefined;
  try {
    const found = sortTemplates(await lookUp(services, text));
    found.forEach((t) => services.serverTemplates.set(t.hash_id, t));
    if (!found.length) throw new CommandFailure(vscode.l10n.t('No service template is named or has the hash id "{0}".', text.trim()));
    if (found.length === 1) return found[0];
    return (
      await vscode.window.showQuickPick(
        found.map((t) => ({ label: t.name, description: t.hash_id, detail: templateFacts(t), t })),
        { title: TITLE },
      )
    )?.t;
  } catch (e) {
    throw lookUpFailed(e);
  }
}

const lookUpFailed = (e: unknown): CommandFailure => failedTo(e, (why) => vscode.l10n.t('Could not look up the template: {0}', why));

async function pickAction(t: ServerTemplate): Promise<Action | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: vscode.l10n.t('$(rocket) Rent with This Template…'),
        detail: vscode.l10n.t('Searches offers and rents with template_hash_id {0}: {1}', t.hash_id, templateFacts(t)),
        action: 'rent' as const,
      },
      {
        label: vscode.l10n.t('$(save) Save as Workspace Template…'),
        detail: vscode.l10n.t('Writes .gpu/<name>.json referencing it, to rent again or to add offer filters, SSH options and env.'),
        action: 'save' as const,
      },
      { label: vscode.l10n.t('$(json) Open'), detail: vscode.l10n.t('The workspace template that rents it, read-only.'), action: 'open' as const },
    ],
    { title: `${TITLE}: ${t.name}`, placeHolder: t.desc || templateFacts(t) },
  );
  return picked?.action;
}

function docUri(t: ServerTemplate): vscode.Uri {
  return vscode.Uri.from({ scheme: SERVER_TEMPLATE_SCHEME, path: `/${t.hash_id}/${templateSlug(t)}.json` });
}

async function save(t: ServerTemplate): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) throw new CommandFailure(vscode.l10n.t('Open a folder first: workspace templates live in its .gpu/ folder.'), [OPEN_FOLDER()]);
  const folder =
    folders.length === 1 ? folders[0]! : await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Save the template in which folder?') });
  if (!folder) return undefined;
  const dir = vscode.Uri.joinPath(folder.uri, '.gpu');
  await vscode.workspace.fs.createDirectory(dir);
  let target = vscode.Uri.joinPath(dir, `${templateSlug(t)}.json`);
  for (let n = 2; n < 100; n++) {
    try {
      await vscode.workspace.fs.stat(target);
      target = vscode.Uri.joinPath(dir, `${templateSlug(t)}-${n}.json`);
    } catch {
      break; // free
    }
  }
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(workspaceTemplateText(t)));
  await vscode.window.showTextDocument(target, { preview: false });
  return target;
}

/** gpuRental.browseServerTemplates(args?): resolves the saved or opened document's Uri, or the create flow's result. */
export async function browseServerTemplates(services: Pick<Services, 'api' | 'connection' | 'log' | 'serverTemplates'>, arg?: unknown): Promise<unknown> {
  ensureSignedIn(services);
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as BrowseArgs;
  let t: ServerTemplate | undefined;
  if (typeof a.hashId === 'string') {
    try {
      t = (await lookUp(services, a.hashId))[0];
    } catch (e) {
      throw lookUpFailed(e);
    }
    if (!t) throw new CommandFailure(vscode.l10n.t('No service template has the hash id "{0}".', a.hashId));
    services.serverTemplates.set(t.hash_id, t);
  } else t = await pickTemplate(services);
  if (!t) return undefined;
  const action = a.action === 'rent' || a.action === 'save' || a.action === 'open' ? a.action : await pickAction(t);
  if (action === 'save') return save(t);
  const uri = docUri(t);
  const doc = await vscode.workspace.openTextDocument(uri);
  if (action === 'open') {
    await vscode.window.showTextDocument(doc, { preview: true });
    return uri;
  }
  if (action === 'rent') {
    return vscode.commands.executeCommand('gpuRental.createFromTemplate', {
      template: uri,
      ...(typeof a.offerId === 'number' ? { offerId: a.offerId } : {}),
      ...(a.confirm === false ? { confirm: false } : {}),
    });
  }
  return undefined;
}
