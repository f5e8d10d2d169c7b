// What the sidebar's store-backed trees share: the change event VS Code listens to, the tree view
// they set their message and description on (registerViews gives it), the view's progress bar
// while a load runs and the context keys that pick its welcome content (VS Code's native UI, not
// text rows: V5 of the UX audit), and the subscriptions to the stores they render, all ended by dispose().
import * as vscode from 'vscode';
import type { Event } from '../events';
import type { Logger } from '../../api/types';
import { background } from '../background';

/** What a store-backed view shows above its rows: the message, and the description beside its title. */
export interface ViewText {
  message: string | undefined;
  description: string | undefined;
  /** A load runs: the view's progress bar shows (withProgress on the view). */
  busy?: boolean;
  /** Context keys that choose the view's welcome content (package.json viewsWelcome), e.g. gpuRental.noInstances. */
  context?: Record<string, boolean>;
}

/** The view a tree shows its progress on, and where a failure to set it is logged. */
export interface StoreTreeView {
  viewId: string;
  log: Pick<Logger, 'warn'>;
}

export abstract class StoreTree<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: Array<{ dispose(): void }>;
  private shownIn: vscode.TreeView<T> | undefined;
  private endBusy: (() => void) | undefined;
  private readonly contextSet = new Map<string, boolean>();

  /** `sources` are the events after which the whole tree renders again. */
  constructor(
    sources: Array<Event<unknown>>,
    private readonly native?: StoreTreeView,
  ) {
    this.subs = sources.map((on) => on(() => this.update()));
  }

  /** True while the view's progress bar shows a load. */
  get busy(): boolean {
    return this.endBusy !== undefined;
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
    const { message, description, busy, context } = this.describe();
    if (view.message !== message) view.message = message;
    if (view.description !== description) view.description = description;
    if (!this.native) return;
    this.showBusy(busy === true, this.native);
    for (const [key, on] of Object.entries(context ?? {})) {
      if (this.contextSet.get(key) === on) continue;
      this.contextSet.set(key, on);
      background(vscode.commands.executeCommand('setContext', key, on), this.native.log, `setting the ${key} context`);
    }
  }

  /** Starts the view's progress bar when a load starts, ends it when the load is over. */
  private showBusy(on: boolean, native: StoreTreeView): void {
    if (on && !this.endBusy) {
      let end!: () => void;
      const over = new Promise<void>((resolve) => (end = resolve));
      this.endBusy = end;
      background(
        vscode.window.withProgress({ location: { viewId: native.viewId } }, () => over),
        native.log,
        `the progress of ${native.viewId}`,
      );
    } else if (!on && this.endBusy) {
      this.endBusy();
      this.endBusy = undefined;
    }
  }

  abstract getTreeItem(node: T): vscode.TreeItem;
  abstract getChildren(node?: T): vscode.ProviderResult<T[]>;

  protected update(): void {
    if (this.shownIn) this.describeView(this.shownIn);
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.endBusy?.();
    this.endBusy = undefined;
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}
