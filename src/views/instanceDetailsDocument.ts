// Show Instance Details as a read-only virtual document (gpu-rental-instance:/<id>/<name>.md):
// nothing to save, no "Untitled-1" asking to be saved on close, and it follows the instance:
// every poll that changes what it shows refreshes it.
import * as vscode from 'vscode';
import type { Services } from '../host/services';
import { DETAILS_SCHEME, detailsId, instanceDetailsMarkdown } from '../model/instanceViewModel';

export class InstanceDetailsDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** What each open document showed last, so an unchanged poll does not repaint it. */
  private readonly shown = new Map<string, string>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly services: Services) {
    this.subs.push(
      this.changed,
      services.instances.onDidChange(() => this.refresh()),
      vscode.workspace.onDidCloseTextDocument((d) => this.shown.delete(d.uri.toString())),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const text = this.render(uri);
    this.shown.set(uri.toString(), text);
    return text;
  }

  private render(uri: vscode.Uri): string {
    const id = detailsId(uri.path);
    const inst = id === undefined ? undefined : this.services.instances.get(id);
    if (!inst) return `# Instance #${id ?? '?'}\n\nThis instance is no longer in your instance list (destroyed, or signed out). Refresh the Instances view to check.\n`;
    return instanceDetailsMarkdown(inst, this.services.costs.costSoFar(inst, Date.now()));
  }

  private refresh(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== DETAILS_SCHEME) continue;
      const key = doc.uri.toString();
      if (this.shown.get(key) !== this.render(doc.uri)) this.changed.fire(doc.uri);
    }
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
  }
}
