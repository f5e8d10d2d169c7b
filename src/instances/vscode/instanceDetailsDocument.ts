// Show Instance Details as a read-only virtual document (gpu-rental-instance:/<id>/<name>.md):
// nothing to save, no "Untitled-1" asking to be saved on close, and it follows the instance:
// every poll that changes what it shows refreshes it. Registered by the first Show Instance Details
// (a lazily loaded bundle with the command: nothing of it on the activation path).
import * as vscode from 'vscode';
import type { Instance, ServiceApi } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { windowSecrets } from './windowSecrets';
import { DETAILS_SCHEME, detailsId, detailsPath, instanceDetailsMarkdown } from '../instanceDetails';

/** The document of an instance. */
export function detailsUri(i: Instance): vscode.Uri {
  return vscode.Uri.from({ scheme: DETAILS_SCHEME, path: detailsPath(i) });
}

let registered = false;

/**
 * The full records read on demand (the list carries only the view's columns): merged under the
 * list's row, so polled values stay fresh and every other field is still shown.
 */
const fullRecords = new Map<number, Instance>();
export function rememberFullRecord(i: Instance): void {
  fullRecords.set(i.id, i);
}

/** Registers the document provider once per window. */
export function registerInstanceDetails(services: Services): void {
  if (registered) return;
  registered = true;
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const docs = new InstanceDetailsDocuments(services, changed);
  services.track(changed);
  services.track(docs);
  services.track(
    vscode.workspace.registerTextDocumentContentProvider(DETAILS_SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => docs.provideTextDocumentContent(uri),
    }),
  );
}

export class InstanceDetailsDocuments implements vscode.Disposable {
  /** What each open document showed last, so an unchanged poll does not repaint it. */
  private readonly shown = new Map<string, string>();
  private readonly subs: vscode.Disposable[] = [];
  /** The client, once known: the expanded template secrets it sent are masked in onstart. */
  private api: ServiceApi | undefined;

  constructor(
    private readonly services: Services,
    private readonly changed: vscode.EventEmitter<vscode.Uri>,
  ) {
    this.subs.push(
      services.instances.onDidChange(() => this.refresh()),
      services.guard.onDidChange(() => this.refresh()),
      vscode.workspace.onDidCloseTextDocument((d) => this.shown.delete(d.uri.toString())),
    );
  }

  /** Every secret value known in this window: the connection's keys and what the client has sent or seen. */
  private secrets(): Array<string | undefined> {
    return windowSecrets(this.services, this.api);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.api = await this.services.api().catch(() => this.api);
    const text = this.render(uri);
    this.shown.set(uri.toString(), text);
    return text;
  }

  private render(uri: vscode.Uri): string {
    const id = detailsId(uri.path);
    const row = id === undefined ? undefined : this.services.instances.get(id);
    const full = id === undefined ? undefined : fullRecords.get(id);
    const inst = row && full ? { ...full, ...definedOnly(row) } : row;
    if (!inst)
      return `# Instance #${id ?? '?'}\n\nThis instance is no longer in your instance list (destroyed, or signed out). Refresh the Instances view to check.\n`;
    return instanceDetailsMarkdown(inst, this.services.costs.line(inst), this.services.guard.status(inst.id), this.secrets());
  }

  private refresh(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== DETAILS_SCHEME) continue;
      if (this.shown.get(doc.uri.toString()) !== this.render(doc.uri)) this.changed.fire(doc.uri);
    }
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
  }
}

/** The fields a (trimmed) list row actually carries. */
function definedOnly(i: Instance): Instance {
  return Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined)) as unknown as Instance;
}
