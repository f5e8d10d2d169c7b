// Issue 35 item 5, one truth for money figures: the Account view, the status bar (text and
// tooltip) and the budget show the credit of one read, and say when it was read. Before, the
// Account view and the status bar disagreed for 20 minutes after the balance moved.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { describe, it, waitFor, uiCheckpoint } from './framework';
import { simControl } from './sim';
import { signIn, signOutAfterEach, ui as sessionUi, type TreeLike } from './session';

interface Row {
  id: string;
  label: string;
  description?: string;
}
interface Ui {
  account: TreeLike<Row>;
  statusBar: { item: vscode.StatusBarItem };
}

const tooltipText = (t: string | vscode.MarkdownString | undefined) => (typeof t === 'string' ? t : (t?.value ?? ''));
/** "as of 15:42" in the forms the views use (local time, hours and minutes). */
const AS_OF = /as of \d{2}\\?:\d{2}/;

describe('one truth for money figures', () => {
  signOutAfterEach('workbench.action.closeAllEditors');

  it(
    'a changed balance, one Refresh Account: the Account view and the status bar tooltip show the same credit, each with when it was read (screenshot)',
    async () => {
      const { ui } = await sessionUi<Ui>();
      await signIn();
      await vscode.commands.executeCommand('gpuRental.account.focus');
      const userRow = async () => ((await ui.account.getChildren()) ?? []).find((r) => r.id === 'user');
      await waitFor(async () => (await userRow())?.description?.includes('credit') === true, 15_000, 'the Account view to show the credit');
      await waitFor(() => /Credit: /.test(tooltipText(ui.statusBar.item.tooltip)), 15_000, 'the status bar to know the credit');

      await simControl().setAccount({ credit: 4321.09 });
      await vscode.commands.executeCommand('gpuRental.tfa.refresh'); // Refresh Account, once
      await waitFor(async () => /\$4,?321\.09/.test((await userRow())?.description ?? ''), 15_000, 'the Account view to show the new credit');
      const account = (await userRow())?.description ?? '';
      const tip = tooltipText(ui.statusBar.item.tooltip);
      const { services } = await sessionUi<Ui>();
      assert.match(
        tip.replace(/\\/g, ''),
        /Credit: \$4321\.09/,
        `the status bar tooltip has the same credit: ${tip} ${JSON.stringify(services.credit.reading())}`,
      );
      assert.match(account, AS_OF, `the Account view says when it was read: ${account}`);
      assert.match(tip, AS_OF, `the tooltip says when it was read: ${tip}`);
      assert.equal(account.match(AS_OF)?.[0], tip.replace(/\\/g, '').match(AS_OF)?.[0], 'the same read');
      const shot = await uiCheckpoint('money-truth');
      assert.ok(shot === 'ok' || shot === 'skipped', `screenshot: ${shot}`);
    },
    { timeoutMs: 60_000 },
  );
});
