// A newcomer's small surprises, in a real VS Code against the simulator: money already spent
// (row tooltip, Details, the Destroy confirmation, the status bar), Details as a read-only
// document that follows the instance, a long label that leaves price and state in view, Start
// offering Connect, Search Offers as one editable list, the interruptible confirmation,
// and "Rent this offer with which template?" putting the templates that fit first.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../../src/api/types';
import type { Services } from '../../../src/core/vscode/services';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, uiCheckpoint } from './framework';
import { runningInstance, simControl } from './sim';
import { rowOf, signIn, ui, writeWorkspaceTemplate, type InstanceNode, type TreeLike } from './session';

interface Ui {
  instances: TreeLike<InstanceNode>;
  statusBar: { item: vscode.StatusBarItem };
}

async function signedIn(): Promise<{ services: Services; ui: Ui }> {
  const r = await ui<Ui>();
  await signIn();
  return r;
}

async function tooltipOf(ui: Ui, id: number): Promise<string> {
  const row = await rowOf(ui, id);
  assert.ok(row, `no row for #${id}`);
  const t = row.tooltip;
  return typeof t === 'string' ? t : (t?.value ?? '');
}

describe('newcomer', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { services } = await getExtensionApi();
    if (services.connection().signedIn && !services.connection().demo) {
      const api = await services.api();
      for (const i of (await api.listInstances()).instances) await api.destroyInstance(i.id);
    }
    await vscode.commands.executeCommand('gpuRental.clearApiKey');
  });

  it(
    'cost so far: row tooltip, Details (read-only, follows the instance), Destroy confirmation, spent today in the status bar',
    async () => {
      const { services, ui } = await signedIn();
      const inst = await runningInstance(services, 'cost check');
      await simControl().advance(3600); // one simulated hour of billing
      await services.instances.refresh();
      assert.ok(services.instances.get(inst.id)!.total_cost! > 0, 'the simulator reports a running total');
      // The service's own figure: no "estimate" label.
      // Markdown: ':' escaped against autolinks; once the billing session has read the charges, the line names them as its source.
      assert.match(await tooltipOf(ui, inst.id), /- Cost so far\\?: \$\d+\\\.\d\d(?: \\?\(the service\\?'s charges\\?\))?$/m);
      const bar = ui.statusBar.item.tooltip;
      assert.match(typeof bar === 'string' ? bar : (bar?.value ?? ''), /Spent today\\?: /);

      const doc = (await vscode.commands.executeCommand<vscode.TextDocument>('gpuRental.showInstanceDetails', inst.id))!;
      assert.equal(doc.uri.scheme, 'gpu-rental-instance', 'a virtual document, not Untitled-1');
      assert.equal(doc.isUntitled, false);
      assert.equal(doc.isDirty, false, 'nothing to save on close');
      assert.equal(doc.languageId, 'markdown');
      assert.match(doc.getText(), /^running · \$\d+\.\d\d\/h now · Cost so far: \$\d+\.\d\d(?: \(the service's charges\))?$/m);
      // Shown rendered (a Markdown preview), not as raw Markdown.
      await waitFor(
        () => {
          const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
          return input instanceof vscode.TabInputWebview && /markdown\.preview/.test(input.viewType);
        },
        8000,
        'the details shown as a rendered Markdown preview',
      );
      assert.equal(await uiCheckpoint('instance-details'), 'ok');
      // Stopping the instance refreshes the open document.
      await (await services.api()).setInstanceState(inst.id, 'stopped');
      await services.instances.refresh();
      await waitFor(() => /^stopped · /m.test(doc.getText()), 8000, 'the details document to follow the stop');
      assert.equal(doc.isDirty, false);

      answer('showQuickPick', (items: vscode.QuickPickItem[], opts: vscode.QuickPickOptions) => {
        assert.match(opts.title ?? '', /^Destroy "cost check"/);
        assert.match(items[1]?.detail ?? '', /^Cost so far: \$\d+\.\d\d /);
        return items[1];
      });
      assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', inst.id), true);
    },
    { timeoutMs: 40_000 },
  );

  it(
    'Destroy and Recycle: Enter on the confirmation keeps the instance (Cancel is the focused answer)',
    async () => {
      const { services } = await signedIn();
      const inst = await runningInstance(services, 'enter keeps it');
      const api = await services.api();
      for (const command of ['gpuRental.destroyInstance', 'gpuRental.recycleInstance']) {
        const pending = vscode.commands.executeCommand<boolean>(command, inst.id);
        // The runner waits for the confirmation, screenshots it and presses Enter.
        assert.equal(await uiCheckpoint('confirm-enter-cancels'), 'ok');
        assert.equal(await pending, false, `${command}: Enter went ahead`);
      }
      assert.equal((await api.showInstance(inst.id)).state, 'running', 'still there, still running');
      assert.equal(
        (await simControl().requests()).filter((r) => r.method === 'DELETE' || r.path.includes('/recycle/')).length,
        0,
        'nothing destroyed or recycled',
      );
    },
    { timeoutMs: 60_000 },
  );

  it(
    'a long generated label leaves the price and "stopped" in view (screenshot); Start offers Connect when it runs again',
    async () => {
      const { services } = await signedIn();
      const inst = await runningInstance(services, 'demo-workspace-pytorch-z80p');
      await (await services.api()).setInstanceState(inst.id, 'stopped');
      await waitFor(
        async () => {
          await services.instances.refresh();
          return services.instances.get(inst.id)?.state === 'stopped';
        },
        8000,
        'stopped',
      );
      await vscode.commands.executeCommand('gpuRental.instances.focus');
      assert.equal(await uiCheckpoint('instances-long-label'), 'ok');

      capture('showInformationMessage');
      assert.equal(await vscode.commands.executeCommand('gpuRental.startInstance', inst.id), true);
      await simControl().finishBoot(inst.id);
      await waitFor(
        async () => {
          await services.instances.refresh();
          return promptCalls.some((p) => p.kind === 'showInformationMessage' && /^"demo-workspace-pytorch-z80p" is running again\.$/.test(p.text));
        },
        10_000,
        'the "running again" notice',
      );
    },
    { timeoutMs: 60_000 },
  );

  it(
    'Search Offers is one editable list: two filters edited (GPU RAM typed, reliability 0.98 typed), a refused answer changes nothing, Search fills the Offers view (screenshots)',
    async () => {
      const { services, ui: views } = await signedIn();
      // Earlier suites' searches are this workspace's last search, the list's start values: start from the defaults.
      await vscode.commands.executeCommand('gpuRental.searchOffers', {});
      const pending = vscode.commands.executeCommand<unknown[]>('gpuRental.searchOffers');
      // The runner picks "Minimum GPU RAM" and types 24, picks "Minimum host reliability" and types 0.98,
      // types "maybe" at "Verified hosts" (refused, Escape back to the list), then picks Search.
      assert.equal(await uiCheckpoint('search-list'), 'ok');
      const result = await pending;
      assert.ok(
        Array.isArray(result) && result.length > 0,
        `the search ran and found offers: ${JSON.stringify({ result: Array.isArray(result) ? result.length : result, error: services.offers.error, query: services.offers.query, demo: services.connection().demo })}`,
      );
      const q = await services.offers.savedQuery();
      assert.equal(q.minGpuRamGb, 24, 'the typed GPU RAM was kept');
      assert.equal(q.minReliability, 0.98, 'the typed reliability was kept');
      assert.equal(q.verified, true, 'the refused answer changed nothing');
      const offersView = (views as unknown as { offers: TreeLike<{ kind: string; offer?: Offer }> }).offers;
      const nodes = (await offersView.getChildren()) ?? [];
      assert.ok(nodes.length > 0 && nodes.every((n) => n.kind === 'offer'), `the Offers view lists offers: ${JSON.stringify(nodes.map((n) => n.kind))}`);
      for (const n of nodes) {
        assert.ok((n.offer?.gpu_ram ?? 0) >= 24_000, `offer ${n.offer?.id}: ${n.offer?.gpu_ram} MB of GPU RAM`);
        assert.ok((n.offer?.reliability ?? 0) >= 0.98, `offer ${n.offer?.id}: reliability ${n.offer?.reliability}`);
      }
      // Escape on the list cancels, and the list opens with the last search's values.
      const again = vscode.commands.executeCommand('gpuRental.searchOffers');
      assert.equal(await uiCheckpoint('search-list-cancel'), 'ok');
      assert.equal(await again, undefined, 'Escape on the list cancels');
    },
    { timeoutMs: 90_000 },
  );

  it(
    '"Rent this offer with which template?" lists the templates that fit first, marks the others and the broken one',
    async () => {
      const { services } = await signedIn();
      const a100 = await writeWorkspaceTemplate('it-a100.json', '{ "name": "A100 box", "offer": { "gpuNames": ["A100 SXM4"] }, "instance": { "image": "x" } }');
      const broken = await writeWorkspaceTemplate('it-broken-for-rent.json', '{ "name": "Broken box", "instance": { "image": "x", "colour": 1 } }');
      try {
        const [offer] = (await (await services.api()).searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, limit: 5 })) as Offer[];
        assert.ok(offer, 'no RTX 4090 offer');
        let seen: Array<{ label: string; kind?: vscode.QuickPickItemKind; detail?: string }> = [];
        answer('showQuickPick', (items: Array<{ label: string; kind?: vscode.QuickPickItemKind; detail?: string }>, opts: vscode.QuickPickOptions) => {
          assert.equal(opts.title, 'Rent this offer with which template?');
          seen = items;
          return undefined;
        });
        await vscode.commands.executeCommand('gpuRental.rentOffer', offer);
        const labels = seen.map((i) => (i.kind === vscode.QuickPickItemKind.Separator ? `-- ${i.label}` : i.label));
        assert.deepEqual(labels, ['-- Fits this offer', 'PyTorch on one RTX 4090', '-- Does not fit this offer', 'A100 box', '-- Broken', 'Broken box']);
        assert.match(seen.find((i) => i.label === 'A100 box')!.detail!, /Does not fit this offer: GPU RTX 4090 is not in gpuNames \(A100 SXM4\)/);
        assert.match(seen.find((i) => i.label === 'Broken box')!.detail!, /Broken: 1 problem \(instance\.colour: /);
      } finally {
        await vscode.workspace.fs.delete(a100);
        await vscode.workspace.fs.delete(broken);
      }
    },
    { timeoutMs: 30_000 },
  );

  it(
    'the interruptible confirmation reads well and lets the bid change',
    async () => {
      const { services } = await signedIn();
      const spot = await writeWorkspaceTemplate(
        'it-spot.json',
        '{ "name": "Spot box", "offer": { "type": "bid", "bidPrice": 0.5, "maxDphTotal": 5 }, "instance": { "image": "x", "disk": 10 } }',
      );
      try {
        const questions: string[] = [];
        answer('showQuickPick', (items: Array<{ label: string }>) => items[0]); // the cheapest match
        answer('showWarningMessage', (msg: string, _o: unknown, ...items: string[]) => {
          questions.push(msg);
          assert.deepEqual(items, ['Rent', 'Change Bid…']);
          return 'Change Bid…';
        });
        answer('showInputBox', (o: vscode.InputBoxOptions) => {
          assert.equal(o.value, '0.5');
          return '0.75';
        });
        answer('showWarningMessage', (msg: string) => {
          questions.push(msg);
          return undefined; // changed the mind: nothing is rented
        });
        capture('showInformationMessage');
        const r = await vscode.commands.executeCommand<{ outcome: string }>('gpuRental.createFromTemplate', { template: '.gpu/it-spot.json' });
        assert.equal(r?.outcome, 'cancelled');
        assert.match(questions[0]!, /^Rent \d+× .+ for "Spot box" as an interruptible instance, bidding \$0\.500\/h\? The offer's listed price is \$\d/);
        assert.match(questions[1]!, /bidding \$0\.750\/h\?/, 'the new bid is confirmed');
        assert.equal((await (await services.api()).listInstances()).instances.length, 0);
      } finally {
        await vscode.workspace.fs.delete(spot);
      }
    },
    { timeoutMs: 30_000 },
  );
});
