// The Offers tree: renders the offer search state (src/offers/offerStore.ts) of this workspace.
import * as vscode from 'vscode';
import type { Offer } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { offerRow, offerRowSpeech } from '../offerRow';
import { rowSpeech } from '../../core/spokenRow';
import { describeOfferQuery } from '../offerQueryText';
import { demoMessage } from '../../core/connection';
import { errorItem } from '../../core/vscode/errorItem';
import { StoreTree, type ViewText } from '../../core/vscode/storeTree';
import { background } from '../../core/background';

export type OfferTreeNode = { kind: 'offer'; id: number; offer: Offer } | { kind: 'empty' } | { kind: 'error'; message: string };

export class OffersTreeProvider extends StoreTree<OfferTreeNode> {
  constructor(private readonly services: Services) {
    super([services.offers.onDidChange]);
  }

  protected describe(): ViewText {
    const info = this.services.connection();
    const store = this.services.offers;
    const query = store.query; // undefined for the few microtasks until the saved search can be read
    return {
      message: info.demo ? demoMessage() : store.searching && !store.offers ? 'Searching offers…' : undefined,
      description: info.signedIn && query ? describeOfferQuery(query) + (info.demo ? ' · demo' : '') : undefined,
    };
  }

  getTreeItem(node: OfferTreeNode): vscode.TreeItem {
    if (node.kind === 'error') return errorItem('offers:error', 'Could not search offers', node.message, `${node.message}\nClick to retry.`);
    if (node.kind === 'empty') {
      const item = new vscode.TreeItem('No offers match these filters', vscode.TreeItemCollapsibleState.None);
      item.id = 'offers:empty';
      item.description = vscode.l10n.t('Edit filters…');
      item.tooltip = vscode.l10n.t('Loosen the filters (fewer GPUs, less GPU RAM, lower reliability) to see more machines.');
      item.iconPath = new vscode.ThemeIcon('filter');
      item.contextValue = 'offersEmpty';
      item.command = { command: 'gpuRental.searchOffers', title: vscode.l10n.t('Edit Filters') };
      item.accessibilityInformation = { label: rowSpeech('No offers match these filters', 'activate to edit the filters') };
      return item;
    }
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
    if (offers.length === 0) return [{ kind: 'empty' }];
    return offers.map((o) => ({ kind: 'offer', id: o.id, offer: o }));
  }
}
