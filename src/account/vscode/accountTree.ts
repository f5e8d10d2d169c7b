// The Account view (gpuRental.account): user, 2FA state, methods, backup codes and the
// add-method window. Fetches only while visible; refreshes on connection changes. The user and
// its credit are the one read of the account's money (services.credit) the status bar and the
// budget show too, with when it was read; a new read re-renders the view.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { accountRows, loadAccount, type AccountSnapshot } from '../accountSnapshot';
import { type AccountRow } from '../../core/accountRow';
import { formatLocal } from '../tfaErrors';
import { asOfText, formatMoney } from '../../core/rates';
import { background } from '../../core/background';
import { rowSpeech } from '../../core/spokenRow';

export class AccountTreeProvider implements vscode.TreeDataProvider<AccountRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<AccountRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: AccountSnapshot | undefined;
  private loading: Promise<void> | undefined;
  private generation = 0;
  private visible = false;
  private stale = true;

  private readonly creditSub: vscode.Disposable;

  constructor(
    private readonly services: Services,
    private readonly authorizedUntil: () => number | undefined,
  ) {
    // A new read of the account's money (Refresh, the status bar's own reads): show it.
    this.creditSub = services.credit.onDidChange(() => this.snapshot && this.changed.fire(undefined));
  }

  setVisible(v: boolean): void {
    this.visible = v;
    if (v && this.stale) this.refresh();
  }

  /** Drops what is shown and fetches again (when visible; otherwise on next show). */
  refresh(): void {
    // Refresh Account reads the account's money even while the view is hidden: the status bar shows it too.
    if (this.services.connection().signedIn) background(this.services.credit.refresh(), this.services.log, 'reading the account');
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
      const [account, keys] = await Promise.all([
        loadAccount(api, { user: () => this.services.credit.refresh({ maxAgeMs: 5000 }) }),
        import('./sshKeysNode').then((m) => m.sshKeysNode(this.services, api)),
      ]);
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
    const read = this.services.credit.reading();
    const creditText = read?.credit !== undefined ? `${formatMoney(read.credit)} credit (${asOfText(read.at)})` : undefined;
    const snap = read ? { ...this.snapshot, user: read.user } : this.snapshot;
    const rows = accountRows(snap, {
      nowMs: Date.now(),
      authorizedUntil: this.authorizedUntil(),
      session: conn.session,
      fmt: formatLocal,
      ...(creditText ? { creditText } : {}),
    });
    // Spending (dist/spendingNode.js): the service's charges, read at most every few minutes.
    const spending = await import('../../billing/vscode/spendingNode').then((m) => m.spendingNode(this.services)).catch(() => undefined);
    return spending ? [...rows, spending] : rows;
  }

  dispose(): void {
    this.creditSub.dispose();
    this.changed.dispose();
  }
}
