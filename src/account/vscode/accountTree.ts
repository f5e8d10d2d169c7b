// The Account view (gpuRental.account): user, 2FA state, methods, backup codes and the
// add-method window. Fetches only while visible; refreshes on connection changes.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { accountRows, loadAccount, type AccountRow, type AccountSnapshot } from '../accountSnapshot';
import { formatLocal } from '../tfaErrors';
import { rowSpeech } from '../../core/spokenRow';

export class AccountTreeProvider implements vscode.TreeDataProvider<AccountRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<AccountRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: AccountSnapshot | undefined;
  private loading: Promise<void> | undefined;
  private generation = 0;
  private visible = false;
  private stale = true;

  constructor(
    private readonly services: Services,
    private readonly authorizedUntil: () => number | undefined,
  ) {}

  setVisible(v: boolean): void {
    this.visible = v;
    if (v && this.stale) this.refresh();
  }

  /** Drops what is shown and fetches again (when visible; otherwise on next show). */
  refresh(): void {
    this.generation++;
    this.snapshot = undefined;
    this.stale = true;
    this.changed.fire(undefined);
  }

  private async load(): Promise<void> {
    const gen = this.generation;
    this.stale = false;
    let snap: AccountSnapshot;
    try {
      const api = await this.services.api();
      const [account, keys] = await Promise.all([loadAccount(api), import('./sshKeysNode').then((m) => m.sshKeysNode(this.services, api))]);
      snap = { ...account, ...(keys.node ? { sshKeyNode: keys.node } : {}), errors: [...account.errors, ...(keys.error ? [keys.error] : [])] };
    } catch (e) {
      snap = { errors: [(e as Error).message || 'Could not load your account. Check the connection and choose Refresh.'] };
    }
    // A sign-out or switch during the request makes this answer stale: drop it.
    if (gen !== this.generation) return;
    this.snapshot = snap;
    this.changed.fire(undefined);
  }

  getTreeItem(row: AccountRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, row.children ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon);
    item.contextValue = row.contextValue;
    if (row.command) item.command = { command: row.command, title: row.label };
    item.accessibilityInformation = { label: rowSpeech(row.label, row.description) };
    return item;
  }

  async getChildren(row?: AccountRow): Promise<AccountRow[]> {
    if (row) return row.children ?? [];
    const conn = this.services.connection();
    if (!conn.signedIn) return []; // the welcome view explains how to sign in
    if (!this.snapshot) {
      if (!this.visible && !this.loading) return [];
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      await this.loading;
    }
    if (!this.snapshot) return [];
    const rows = accountRows(this.snapshot, { nowMs: Date.now(), authorizedUntil: this.authorizedUntil(), session: conn.session, fmt: formatLocal });
    // Spending (dist/spendingNode.js): the service's charges, read at most every few minutes.
    const spending = await import('../../billing/vscode/spendingNode').then((m) => m.spendingNode(this.services)).catch(() => undefined);
    return spending ? [...rows, spending] : rows;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
