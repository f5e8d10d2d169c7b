// The Offers tree: renders the offer search state (src/offers/offerStore.ts) of this workspace.
import * as vscode from 'vscode';
import type { Offer } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { offerRow, offerRowSpeech } from '../offerRow';
import { describeOfferQuery } from '../offerQueryText';
import { demoMessage } from '../../core/connection';
import { errorItem } from '../../core/vscode/errorItem';
import { StoreTree, type ViewText } from '../../core/vscode/storeTree';
import { background } from '../../core/background';

export type OfferTreeNode = { kind: 'offer'; id: number; offer: Offer } | { kind: 'error'; message: string };

export class OffersTreeProvider extends StoreTree<OfferTreeNode> {
  constructor(private readonly services: Services) {
    super([services.offers.onDidChange], { viewId: 'gpuRental.offers', log: services.log });
  }

  protected describe(): ViewText {
    const info = this.services.connection();
    const store = this.services.offers;
    const query = store.query; // undefined for the few microtasks until the saved search can be read
    // A search: the view's progress bar. None matched: the view's welcome content (gpuRental.noOffers) with Edit Filters.
    return {
      message: info.demo ? demoMessage() : undefined,
      description: info.signedIn && query ? describeOfferQuery(query) + (info.demo ? ' · demo' : '') : undefined,
      busy: info.signedIn && store.searching && !store.offers,
      context: { 'gpuRental.noOffers': info.signedIn && !store.error && store.offers?.length === 0 },
    };
  }

  getTreeItem(node: OfferTreeNode): vscode.TreeItem {
    if (node.kind === 'error') return errorItem('offers:error', 'Could not search offers', node.message, `${node.message}\nClick to retry.`);
    const row = offerRow(node.offer);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = new vscode.MarkdownString(row.tooltip);
    item.iconPath = new vscode.ThemeIcon(row.icon);
    item.contextValue = row.contextValue;
    item.accessibilityInformation = { label: offerRowSpeech(node.offer) };
    return item;
  }

  getChildren(node?: OfferTreeNode): OfferTreeNode[] {
    const store = this.services.offers;
    if (node || !this.services.connection().signedIn) return [];
    if (store.error) return [{ kind: 'error', message: store.error }];
    const offers = store.offers;
    if (!offers) {
      if (!store.searching) background(store.refresh(), this.services.log, 'searching offers');
      return [];
    }
    return offers.map((o) => ({ kind: 'offer', id: o.id, offer: o }));
  }
}
