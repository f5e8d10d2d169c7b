// The Instances tree: one row per instance (stable id = instance id), details as children,
// one calm error row with Retry when polling fails.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { fullRecord } from '../fullRecord';
import { instanceRow } from '../instanceViewModel';
import { instanceDetails } from '../detailRows';
import { windowSecrets } from './windowSecrets';
import { md } from '../../core/textFormat';
import { demoMessage } from '../../core/connection';
import { errorItem } from '../../core/vscode/errorItem';
import { StoreTree, type ViewText } from '../../core/vscode/storeTree';
import { readGroupIndex } from '../../core/groupIndex';
import { currentRate, formatMoney, formatRate, type GroupCost } from '../../core/rates';
import type { Instance } from '../../api/types';
import { instanceRowSpeech } from '../rowSpeech';
import { rowSpeech } from '../../core/spokenRow';

export type InstanceTreeNode =
  /** A group of machines rented for one job (src/groups/): its members are its children. */
  | { kind: 'group'; name: string; ids: number[] }
  | { kind: 'instance'; id: number }
  | { kind: 'detail'; instanceId: number; key: string; label: string; value: string; secret: boolean }
  | { kind: 'error'; message: string };

export class InstancesTreeProvider extends StoreTree<InstanceTreeNode> {
  constructor(private readonly services: Services) {
    const store = services.instances;
    super([store.onDidChange, store.onDidChangeStatus, services.onDidChangeConnection, services.guard.onDidChange, services.marks.onDidChange], {
      viewId: 'gpuRental.instances',
      log: services.log,
    });
  }

  protected describe(): ViewText {
    const info = this.services.connection();
    const store = this.services.instances;
    // The first load: the view's progress bar. No instances: the view's welcome content (gpuRental.noInstances), with its button.
    return {
      message: info.demo ? demoMessage() : undefined,
      description: info.demo ? 'Demo' : undefined,
      busy: info.signedIn && !store.loaded && !store.error,
      context: { 'gpuRental.noInstances': info.signedIn && store.loaded && store.instances.length === 0 && !store.error },
    };
  }

  getTreeItem(node: InstanceTreeNode): vscode.TreeItem {
    const store = this.services.instances;
    if (node.kind === 'error') {
      return errorItem('instances:error', 'Could not refresh instances', node.message, `${node.message}\n\nRetrying automatically; click to retry now.`);
    }
    if (node.kind === 'detail') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
      item.id = `instance:${node.instanceId}:${node.key}`;
      item.description = node.value;
      // The API's name stays in the tooltip: what its documentation and the CLI call the field.
      item.tooltip = node.secret
        ? vscode.l10n.t('{0} ({1}): a secret. Copy Jupyter Token puts it on the clipboard.', node.label, node.key)
        : `${node.label} (${node.key}): ${node.value}`;
      item.contextValue = node.secret && node.key === 'jupyter_token' ? 'instanceDetail.jupyterToken' : 'instanceDetail';
      item.accessibilityInformation = { label: rowSpeech(node.label, node.secret ? 'secret, hidden; the context menu copies it' : node.value) };
      return item;
    }
    if (node.kind === 'group') {
      const members = node.ids.flatMap((id) => store.get(id) ?? []);
      return groupItem(node, members, this.services.costs.group(members));
    }
    const inst = store.get(node.id);
    if (!inst) {
      const gone = new vscode.TreeItem(`#${node.id}`, vscode.TreeItemCollapsibleState.None);
      gone.id = `instance:${node.id}`;
      gone.description = vscode.l10n.t('removed');
      gone.accessibilityInformation = { label: rowSpeech(`Instance ${node.id}`, 'removed') };
      return gone;
    }
    const pending = store.pending(inst.id);
    const guard = this.services.guard.status(inst.id);
    const row = instanceRow(inst, pending, guard, this.services.costs.line(inst));
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = row.id;
    const marks = this.services.marks.of(inst.id);
    // Marks first: a narrow sidebar truncates the end of the description.
    item.description = [...marks.map((m) => `⚠ ${m.text}`), row.description].join(' · ');
    const tip = new vscode.MarkdownString([row.tooltip, ...marks.map((m) => md(m.tooltip))].join('\n\n'));
    tip.supportThemeIcons = false;
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
    // A mark may add a word for the menus (`.priceUp`: Review Price Increase…).
    item.contextValue = [row.contextValue, ...marks.flatMap((m) => (m.context ? [m.context] : []))].join('.');
    item.accessibilityInformation = { label: instanceRowSpeech(inst, { pending, guard, marks: marks.map((m) => m.text) }) };
    return item;
  }

  async getChildren(node?: InstanceTreeNode): Promise<InstanceTreeNode[]> {
    const store = this.services.instances;
    if (!node) {
      if (!this.services.connection().signedIn) return [];
      const rows: InstanceTreeNode[] = [];
      if (store.error) rows.push({ kind: 'error', message: store.error.message });
      // A group is one row (members under it); the other instances as they are.
      const groups = readGroupIndex(this.services.globalState).filter((g) => g.instanceIds.some((id) => store.get(id)));
      const grouped = new Set(groups.flatMap((g) => g.instanceIds));
      for (const g of groups) rows.push({ kind: 'group', name: g.name, ids: g.instanceIds });
      for (const i of store.instances) if (!grouped.has(i.id)) rows.push({ kind: 'instance', id: i.id });
      return rows;
    }
    if (node.kind === 'group') return node.ids.filter((id) => store.get(id)).map((id) => ({ kind: 'instance' as const, id }));
    if (node.kind !== 'instance') return [];
    const row = store.get(node.id);
    if (!row) return [];
    // The list has only the view's columns: an expanded row shows the whole record.
    const inst = await fullRecord(() => this.services.api(), row, this.services.log);
    // Values masked as Show Instance Details masks them: what a row shows is what Copy Value copies.
    const secrets = windowSecrets(this.services, await this.services.api().catch(() => undefined));
    return instanceDetails(inst, secrets).map((d) => ({
      kind: 'detail' as const,
      instanceId: inst.id,
      key: d.key,
      label: d.label,
      value: d.value,
      secret: d.secret === true,
    }));
  }

  getParent(node: InstanceTreeNode): InstanceTreeNode | undefined {
    if (node.kind === 'detail') return { kind: 'instance', id: node.instanceId };
    if (node.kind !== 'instance') return undefined;
    const g = readGroupIndex(this.services.globalState).find((x) => x.instanceIds.includes(node.id));
    return g ? { kind: 'group', name: g.name, ids: g.instanceIds } : undefined;
  }
}

/** The group's row: its name, how many members run, what it costs per hour in total and has cost so far (`spent`). */
function groupItem(node: { name: string; ids: number[] }, members: readonly Instance[], spent: GroupCost | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(`Group ${node.name}`, vscode.TreeItemCollapsibleState.Expanded);
  item.id = `group:${node.name}`;
  const running = members.filter((m) => m.state === 'running').length;
  const rate = members.reduce((s, m) => s + currentRate(m), 0);
  item.description = vscode.l10n.t(
    '{0}/{1} running · {2} in total{3}',
    running,
    node.ids.length,
    formatRate(rate, 2),
    spent ? ` · ${spent.estimate ? '≈ ' : ''}${formatMoney(spent.amount)} so far` : '',
  );
  item.tooltip = vscode.l10n.t(
    'Group {0}: {1} machines on one private network (instances {2}). {3}Stop, Start and Destroy act on every member; SSH: gpu-{4} (rank 0), gpu-{5}-<rank>.',
    node.name,
    node.ids.length,
    node.ids.join(', '),
    spent ? `${spent.line}. ` : '',
    node.name,
    node.name,
  );
  item.iconPath = new vscode.ThemeIcon('server-environment');
  item.contextValue = 'group';
  return item;
}
