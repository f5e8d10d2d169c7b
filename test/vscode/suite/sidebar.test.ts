// Sidebar in a real VS Code against the simulator: API key (bad then good), the trees,
// every instance action (server state and row), the status bar costs, signed-out state.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Instance } from '../../../src/api/types';
import { sshAddress } from '../../../src/ssh/address';

import { formatRate } from '../../../src/core/rates';
import { instanceName } from '../../../src/core/instanceWords';
import { md as mdEscape } from '../../../src/core/textFormat';
import { describe, it, getExtensionApi, simUrl, waitFor, answer, capture, promptCalls } from './framework';
import { simControl } from './sim';
import { rowOf, signIn, signInToSeeded, ui as sessionUi, type InstanceNode, type TreeLike, signOutAfterEach } from './session';
import { GUARD_NO_WARN_KEY, SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

interface Ui {
  instances: TreeLike<InstanceNode> & object;
  offers: TreeLike<{ kind: string; id?: number }> & object;
  statusBar: { item: vscode.StatusBarItem };
}

const ui = () => sessionUi<Ui>();

async function rows(u: Ui): Promise<Array<{ node: InstanceNode; item: vscode.TreeItem }>> {
  const nodes = (await u.instances.getChildren()) ?? [];
  return Promise.all(nodes.map(async (node) => ({ node, item: await u.instances.getTreeItem(node) })));
}

async function serverInstance(id: number): Promise<Instance | undefined> {
  const { services } = await getExtensionApi();
  const list = await (await services.api()).listInstances();
  return list.instances.find((i) => i.id === id);
}

describe('sidebar', () => {
  signOutAfterEach('gpuRental.exitDemoMode');

  it('signed out: no key, no rows, status bar hidden', async () => {
    const { services, ui: u } = await ui();
    await vscode.commands.executeCommand('gpuRental.clearApiKey');
    await waitFor(() => !services.connection().signedIn, 5000, 'signed out');
    assert.deepEqual(await u.instances.getChildren(), []);
    assert.deepEqual(await u.offers.getChildren(), []);
    assert.equal(await services.secrets.get('apiKey'), undefined);
  });

  it('set key: a bad key is refused and not saved, then the good key signs in', async () => {
    const { services } = await ui();
    await vscode.workspace.getConfiguration('gpuRental').update('apiBaseUrl', simUrl(), vscode.ConfigurationTarget.Global);
    capture('showErrorMessage');
    const bad = await vscode.commands.executeCommand<boolean>('gpuRental.setApiKey', 'definitely-not-a-key');
    assert.equal(bad, false);
    assert.ok(
      promptCalls.some((p) => p.kind === 'showErrorMessage' && /rejected/.test(p.text)),
      'no clear error for the bad key',
    );
    assert.equal(await services.secrets.get('apiKey'), undefined, 'bad key was saved');
    assert.equal(services.connection().signedIn, false);
    await signIn();
    assert.equal(services.connection().signedIn, true);
    assert.equal(await services.secrets.get('apiKey'), 'sim-api-key');
  });

  it(
    'trees show the simulator instances and offers',
    async () => {
      const { services, ui: u } = await ui();
      await signInToSeeded(3);
      const server = await (await services.api()).listInstances();
      await waitFor(async () => (await rows(u)).length === server.instances.length, 10_000, 'one row per instance');
      for (const i of server.instances) {
        const item = await rowOf(u, i.id);
        assert.ok(item, `no row for #${i.id}`);
        assert.equal(item.id, `instance:${i.id}`);
        assert.match(String(item.contextValue), /^instance\.(running|loading)/);
        assert.match(String(item.description), /\$\d+\.\d\d\/h/);
      }
      const offers = await vscode.commands.executeCommand<unknown[]>('gpuRental.searchOffers', { limit: 5 });
      assert.equal(offers?.length, 5);
      const offerNodes = (await u.offers.getChildren()) ?? [];
      assert.equal(offerNodes.length, 5);
      const first = await u.offers.getTreeItem(offerNodes[0]!);
      assert.equal(first.contextValue, 'offer');
      assert.match(String(first.description), /^\$\d+\.\d\d\/h/);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'every instance action changes the server state and the row',
    async () => {
      const { services, ui: u } = await ui();
      await signInToSeeded(2);
      const [a, b] = services.instances.instances;
      assert.ok(a && b, 'two seeded instances');

      assert.equal(await vscode.commands.executeCommand('gpuRental.stopInstance', a.id), true);
      assert.equal((await serverInstance(a.id))?.intended_status, 'stopped');
      await waitFor(async () => (await rowOf(u, a.id))?.contextValue === 'instance.stopped', 10_000, 'row shows stopped');

      assert.equal(await vscode.commands.executeCommand('gpuRental.startInstance', { kind: 'instance', id: a.id }), true);
      assert.equal((await serverInstance(a.id))?.intended_status, 'running');
      await simControl().finishBoot(a.id);
      await services.instances.refresh();
      await waitFor(async () => /^instance\.running/.test(String((await rowOf(u, a.id))?.contextValue)), 10_000, 'row shows running');

      assert.equal(await vscode.commands.executeCommand('gpuRental.renameInstance', a.id, 'renamed-test'), true);
      assert.equal((await serverInstance(a.id))?.label, 'renamed-test');
      await waitFor(async () => (await rowOf(u, a.id))?.label === 'renamed-test', 5000, 'row label');

      const ssh = await vscode.commands.executeCommand<string>('gpuRental.copySshCommand', a.id);
      // the service's rule: a direct instance (seeded ones are ssh_direct) is reached on its 22/tcp mapping
      const addr = sshAddress((await serverInstance(a.id))!)!;
      assert.equal(addr.kind, 'direct');
      assert.equal(ssh, `ssh -p ${addr.port} root@${addr.host}`);
      assert.equal(await vscode.env.clipboard.readText(), ssh);

      // What the create flow and the guard keep per instance: it goes with the instance, and only with it.
      const records = () => ({
        ssh: Object.keys(services.globalState.get<Record<string, unknown>>(SSH_OPTIONS_STATE_KEY) ?? {})
          .map(Number)
          .filter((id) => id === a.id || id === b.id)
          .sort(),
        noWarn: (services.globalState.get<number[]>(GUARD_NO_WARN_KEY) ?? []).filter((id) => id === a.id || id === b.id).sort(),
      });
      await services.globalState.update(SSH_OPTIONS_STATE_KEY, {
        ...services.globalState.get<object>(SSH_OPTIONS_STATE_KEY),
        [a.id]: { user: 'root' },
        [b.id]: { remoteFolder: '/workspace' },
      });
      await services.globalState.update(GUARD_NO_WARN_KEY, [...(services.globalState.get<number[]>(GUARD_NO_WARN_KEY) ?? []), a.id, b.id]);
      answer('showQuickPick', 'Destroy');
      assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', b.id), true);
      await waitFor(
        async () => JSON.stringify(records()) === JSON.stringify({ ssh: [a.id], noWarn: [a.id] }),
        5000,
        "the destroyed instance's records to go, the other's to stay",
      );
      const prompt = promptCalls.find((p) => p.kind === 'showQuickPick');
      assert.ok(prompt && prompt.text.includes(`#${b.id}`) && /\$\d+\.\d\d\/h/.test(prompt.text), 'confirmation names the instance and its cost');
      assert.equal(await serverInstance(b.id), undefined);
      assert.equal(await rowOf(u, b.id), undefined);

      assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', { id: a.id, skipConfirmation: true }), true);
      assert.equal(await serverInstance(a.id), undefined);
      await waitFor(async () => JSON.stringify(records()) === JSON.stringify({ ssh: [], noWarn: [] }), 5000, "both instances' records to go");
    },
    { timeoutMs: 60_000 },
  );

  it(
    'status bar text and tooltip match the simulator costs',
    async () => {
      const { services, ui: u } = await ui();
      await signInToSeeded(3);
      const first = services.instances.instances[0];
      assert.ok(first);
      await vscode.commands.executeCommand('gpuRental.stopInstance', first.id);
      await services.instances.refresh();
      const list = (await (await services.api()).listInstances()).instances;
      let total = 0;
      let running = 0;
      for (const i of list) {
        if (i.intended_status === 'stopped') total += i.instance?.totalHour ?? 0;
        else {
          total += i.dph_total ?? 0;
          if (i.state === 'running') running++;
        }
      }
      const expected = `$(server) $${total.toFixed(2)}/h · ${running} running`;
      await waitFor(() => u.statusBar.item.text === expected, 10_000, `status bar "${expected}" (is "${u.statusBar.item.text}")`);
      const tip = u.statusBar.item.tooltip;
      const md = typeof tip === 'string' ? tip : (tip?.value ?? '');
      // the stopped instance bills its storage only, at the simulator's storage-only rate, named in the tooltip
      const stopped = list.find((i) => i.id === first.id);
      const storage = stopped?.instance?.totalHour ?? 0;
      assert.ok(stopped && stopped.intended_status === 'stopped' && storage > 0, 'the simulator bills storage while stopped');
      const stoppedTotal = list.filter((i) => i.intended_status === 'stopped').reduce((n, i) => n + (i.instance?.totalHour ?? 0), 0);
      assert.ok(md.includes(`Stopped (storage only, ${mdEscape(formatRate(stoppedTotal))} in all):`), md);
      assert.ok(md.includes(`- ${mdEscape(instanceName(stopped))}: ${mdEscape(formatRate(storage))}`), md);
      assert.match(md, /Credit: \$\d/);
      assert.match(md, /^Total: .*\n\nCredit: /m, 'Total and Credit are separate Markdown paragraphs, not one joined line');
    },
    { timeoutMs: 30_000 },
  );

  it(
    "low credit: one warning that stays (an error with buttons), the cost item red; Don't Show Again sets lowCreditWarningHours to 0 in user settings",
    async () => {
      const { services, ui: u } = await ui();
      const cfg = vscode.workspace.getConfiguration('gpuRental');
      // Any running rental makes the seeded credit "low" within this many hours.
      await cfg.update('lowCreditWarningHours', 720, vscode.ConfigurationTarget.Global);
      // Once per session: a warning an earlier test saw must not hide this one.
      (u.statusBar as unknown as { warnedThisSession: boolean }).warnedThisSession = false;
      const asked: unknown[][] = [];
      answer('showErrorMessage', (...args: unknown[]) => (asked.push(args), "Don't Show Again"));
      try {
        await signInToSeeded(2);
        await waitFor(() => (asked.length ? true : undefined), 10_000, 'the low-credit warning');
        assert.match(String(asked[0]![0]), /^Your credit \(\$[\d,.]+\) runs out/);
        assert.deepEqual(asked[0]!.slice(1), ['Open Instances', 'Stop All Running…', "Don't Show Again"]);
        assert.deepEqual(u.statusBar.item.backgroundColor, new vscode.ThemeColor('statusBarItem.errorBackground'));
        await waitFor(
          () => (vscode.workspace.getConfiguration('gpuRental').inspect<number>('lowCreditWarningHours')?.globalValue === 0 ? true : undefined),
          10_000,
          'the setting turned off in user settings',
        );
        await services.instances.refresh();
        assert.equal(u.statusBar.item.backgroundColor, undefined, 'no longer coloured once the warning is off');
      } finally {
        await cfg.update('lowCreditWarningHours', undefined, vscode.ConfigurationTarget.Global);
      }
    },
    { timeoutMs: 30_000 },
  );

  it(
    'demo mode runs its own simulator in-process, is marked, and saves nothing',
    async () => {
      const { services, ui: u } = await ui();
      await vscode.commands.executeCommand('gpuRental.clearApiKey');
      capture('showInformationMessage', 'showWarningMessage', 'showErrorMessage');
      // Any demo account would count as low on credit: still no warning about simulated money.
      const cfg = vscode.workspace.getConfiguration('gpuRental');
      await cfg.update('lowCreditWarningHours', 1_000_000, vscode.ConfigurationTarget.Global);
      try {
        assert.equal(await vscode.commands.executeCommand('gpuRental.tryDemoMode'), true);
        const info = services.connection();
        assert.equal(info.demo, true);
        assert.equal(info.signedIn, true);
        assert.match(info.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.notEqual(info.baseUrl, simUrl(), 'demo uses its own simulator, not the test one');
        await services.instances.refresh();
        await waitFor(() => services.instances.instances.length >= 2, 10_000, 'demo instances');
        await waitFor(() => / · demo$/.test(u.statusBar.item.text), 5000, 'status bar marked demo');
        await new Promise((r) => setTimeout(r, 500));
        const warnings = promptCalls.filter((c) => (c.kind === 'showWarningMessage' || c.kind === 'showErrorMessage') && /credit/.test(c.text));
        assert.deepEqual(warnings, [], 'no low-credit warning for the simulated demo account');
      } finally {
        await cfg.update('lowCreditWarningHours', undefined, vscode.ConfigurationTarget.Global);
      }
      await vscode.commands.executeCommand('gpuRental.exitDemoMode');
      assert.equal(services.connection().demo, false);
      assert.equal(services.connection().signedIn, false);
      assert.equal(await services.secrets.get('apiKey'), undefined, 'demo mode persisted a key');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'a failed refresh shows one calm error row with Retry, no notification',
    async () => {
      const { services, ui: u } = await ui();
      await signInToSeeded(1);
      await simControl().fault({ kind: 'http_error', status: 500, path: '/api/v1/instances', count: 1 });
      await services.instances.refresh();
      const all = await rows(u);
      const errors = all.filter((r) => r.node.kind === 'error');
      assert.equal(errors.length, 1, 'exactly one error row');
      assert.equal(errors[0]?.item.command?.command, 'gpuRental.refresh', 'the row retries');
      assert.equal(errors[0]?.item.contextValue, 'error');
      assert.ok(
        all.some((r) => r.node.kind === 'instance'),
        'the last known instances stay visible',
      );
      await vscode.commands.executeCommand('gpuRental.refresh');
      assert.equal((await rows(u)).filter((r) => r.node.kind === 'error').length, 0, 'Retry cleared the error');
      assert.equal(promptCalls.length, 0, 'no notification for a polling error');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'server error text in the error row is plain text: its links and images are not rendered',
    async () => {
      const { services, ui: u } = await ui();
      await signIn();
      await services.instances.refresh();
      const hostile = 'see [click here](https://evil.example/phish) ![x](https://evil.example/track.png) **now**';
      await simControl().fault({ kind: 'http_error', status: 418, error: 'teapot', msg: hostile, path: '/api/v1/instances', count: 1 });
      await services.instances.refresh();
      const row = (await rows(u)).find((r) => r.node.kind === 'error');
      assert.ok(row, 'an error row');
      const tip = row.item.tooltip;
      assert.equal(
        typeof tip,
        'string',
        `the tooltip is ${tip instanceof vscode.MarkdownString ? 'Markdown' : typeof tip}, which would render the server's links and images`,
      );
      assert.ok(String(tip).includes('[click here](https://evil.example/phish)'), `the server text is shown as written: ${String(tip)}`);
      await vscode.commands.executeCommand('gpuRental.refresh');
    },
    { timeoutMs: 30_000 },
  );
});
