// The Offers tree: the result of the current search (persisted per workspace).
import * as vscode from 'vscode';
import type { Offer, OfferQuery } from '../api/types';
import type { Services } from '../model/services';
import { describeError } from '../model/errors';
import { offerRow } from '../model/instanceViewModel';
import { DEFAULT_OFFER_QUERY, describeOfferQuery, parseOfferQuery } from '../model/offerQuery';
import { DEMO_MESSAGE } from './demoMode';

export const OFFER_SEARCH_STATE_KEY = 'gpuRental.lastOfferSearch';

export type OfferTreeNode =
  | { kind: 'offer'; id: number; offer: Offer }
  | { kind: 'empty' }
  | { kind: 'error'; message: string };

export class OffersTreeProvider implements vscode.TreeDataProvider<OfferTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<OfferTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private results: Offer[] | undefined;
  private error: string | undefined;
  private running: Promise<Offer[]> | undefined;
  private searchGen = 0;
  private readonly seenGpuNames = new Set<string>();
  view: vscode.TreeView<OfferTreeNode> | undefined;

  constructor(private readonly services: Services) {
    this.subs.push(
      services.onDidChangeConnection(() => {
        this.searchGen++;
        this.results = undefined;
        this.error = undefined;
        this.running = undefined;
        this.update();
      }),
    );
  }

  /** The last search of this workspace (or the defaults). */
  get query(): OfferQuery {
    const saved = this.services.workspaceState.get<unknown>(OFFER_SEARCH_STATE_KEY);
    const parsed = saved === undefined ? undefined : parseOfferQuery(saved);
    return parsed?.ok ? parsed.query : { ...DEFAULT_OFFER_QUERY };
  }

  get offers(): readonly Offer[] | undefined {
    return this.results;
  }

  /** GPU names seen in any result so far (for the model picker). */
  get gpuNames(): string[] {
    return [...this.seenGpuNames].sort((a, b) => a.localeCompare(b));
  }

  /** Runs a search, persists it as this workspace's last search and shows the result. */
  async search(query: OfferQuery = this.query): Promise<Offer[]> {
    await this.services.workspaceState.update(OFFER_SEARCH_STATE_KEY, query);
    const gen = ++this.searchGen;
    const p = (async () => {
      const api = await this.services.api();
      return api.searchOffers(query);
    })();
    this.running = p;
    this.update();
    try {
      const offers = await p;
      if (gen === this.searchGen) {
        this.results = offers;
        this.error = undefined;
        for (const o of offers) if (o.gpu_name) this.seenGpuNames.add(o.gpu_name);
      }
      return offers;
    } catch (e) {
      if (gen === this.searchGen) {
        this.error = describeError(e);
        this.services.log.warn(`Offer search failed: ${this.error}`);
      }
      throw e;
    } finally {
      if (this.running === p) this.running = undefined;
      if (gen === this.searchGen) this.update();
    }
  }

  /** Re-run the current search (Refresh). */
  refresh(): Promise<void> {
    if (!this.services.connection().signedIn) return Promise.resolve();
    return this.search().then(
      () => undefined,
      () => undefined,
    );
  }

  private update(): void {
    if (this.view) {
      const info = this.services.connection();
      this.view.description = info.signedIn ? describeOfferQuery(this.query) + (info.demo ? ' · demo' : '') : undefined;
      this.view.message = info.demo ? DEMO_MESSAGE : this.running && !this.results ? 'Searching offers…' : undefined;
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: OfferTreeNode): vscode.TreeItem {
    if (node.kind === 'error') {
      const item = new vscode.TreeItem('Could not search offers', vscode.TreeItemCollapsibleState.None);
      item.id = 'offers:error';
      item.description = node.message;
      item.tooltip = `${node.message}\nClick to retry.`;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.contextValue = 'error';
      item.command = { command: 'gpuRental.refresh', title: 'Retry' };
      return item;
    }
    if (node.kind === 'empty') {
      const item = new vscode.TreeItem('No offers match these filters', vscode.TreeItemCollapsibleState.None);
      item.id = 'offers:empty';
      item.description = 'Edit filters…';
      item.tooltip = 'Loosen the filters (fewer GPUs, less GPU RAM, lower reliability) to see more machines.';
      item.iconPath = new vscode.ThemeIcon('filter');
      item.contextValue = 'offersEmpty';
      item.command = { command: 'gpuRental.searchOffers', title: 'Edit Filters' };
      return item;
    }
    const row = offerRow(node.offer);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = new vscode.MarkdownString(row.tooltip);
    item.iconPath = new vscode.ThemeIcon(row.icon);
    item.contextValue = row.contextValue;
    return item;
  }

  getChildren(node?: OfferTreeNode): OfferTreeNode[] {
    if (node || !this.services.connection().signedIn) return [];
    if (this.error) return [{ kind: 'error', message: this.error }];
    if (!this.results) {
      if (!this.running) void this.refresh();
      return [];
    }
    if (this.results.length === 0) return [{ kind: 'empty' }];
    return this.results.map((o) => ({ kind: 'offer', id: o.id, offer: o }));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}
