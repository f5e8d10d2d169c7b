// What the sidebar's store-backed trees share: the change event VS Code listens to, the tree view
// they set their message and description on (registerViews gives it), and the subscriptions to
// the stores they render, all ended by dispose().
import * as vscode from 'vscode';
import type { Event } from '../events';

/** What a store-backed view shows above its rows: the message, and the description beside its title. */
export interface ViewText {
  message: string | undefined;
  description: string | undefined;
}

export abstract class StoreTree<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: Array<{ dispose(): void }>;
  private shownIn: vscode.TreeView<T> | undefined;

  /** `sources` are the events after which the whole tree renders again. */
  constructor(sources: Array<Event<unknown>>) {
    this.subs = sources.map((on) => on(() => this.update()));
  }

  /** The tree view showing this tree: its message and description follow the stores from now on. */
  get view(): vscode.TreeView<T> | undefined {
    return this.shownIn;
  }
  set view(view: vscode.TreeView<T> | undefined) {
    this.shownIn = view;
    if (view) this.describeView(view);
  }

  /** The view's message and description from the stores (set before each render). */
  protected abstract describe(): ViewText;

  /** Sets only what changed: every assignment is a message to the workbench, the first ones during activation. */
  private describeView(view: vscode.TreeView<T>): void {
    const { message, description } = this.describe();
    if (view.message !== message) view.message = message;
    if (view.description !== description) view.description = description;
  }

  abstract getTreeItem(node: T): vscode.TreeItem;
  abstract getChildren(node?: T): vscode.ProviderResult<T[]>;

  protected update(): void {
    if (this.shownIn) this.describeView(this.shownIn);
    this.changed.fire(undefined);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}
