// A group of machines from the UI, inside a real VS Code: Create from Template with "count": 2
// (the cluster pick and the one confirmation answered as a user would), the group's row in the
// Instances view with its members under it, Run on Group printing each rank's environment from
// the machines themselves, and Destroy Group leaving nothing. Screenshots: the group row, the
// Run on Group terminal.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, simUrl, sleep, uiCheckpoint } from './framework';
import { createApiClient } from '../../../src/api/client';
import { silentLogger } from '../../kit/log';
import { simControl } from './sim';
import { ui as sessionUi, writeWorkspaceTemplate } from './session';
import { dropRentalsAndSshHome, signedInWithSshHome, signOutAndDropSshHome } from './testKey';
import { GROUPS_STATE_KEY, INFLIGHT_STATE_KEY } from '../../../src/core/stateKeys';

let home: string | undefined;

interface GroupNode {
  kind: string;
  name?: string;
  ids?: number[];
  id?: number;
}
interface Ui {
  instances: {
    getChildren(n?: GroupNode): Promise<GroupNode[] | undefined> | GroupNode[] | undefined;
    getTreeItem(n: GroupNode): vscode.TreeItem | Promise<vscode.TreeItem>;
  };
}

const TEMPLATE = JSON.stringify({
  name: 'group it',
  count: 2,
  offer: { gpuNames: ['RTX 4090'], numGpus: 1 },
  instance: { image: 'sim/base:1', runtype: 'ssh_direct', disk: 10 },
  guard: false,
});

describe('groups', () => {
  afterEach(async () => {
    const { services } = await getExtensionApi();
    for (const t of vscode.window.terminals) if (t.name.startsWith('Group ')) t.dispose();
    await signOutAndDropSshHome(services, home);
    home = undefined;
  });

  it(
    'creates a group of 2 from the UI, shows its row, runs a command on every member, and destroys it',
    async () => {
      const { services } = await getExtensionApi();
      home = (await signedInWithSshHome(services, 'gpu-rental-groups-it-')).home;
      await writeWorkspaceTemplate('group-it.json', TEMPLATE);
      answer('showQuickPick', 'Cluster');
      answer('showWarningMessage', (msg: string) => (assert.match(msg, /^Rent 2 machines for "group it" at \$\d+\.\d\d\/h in total\?/), 'Rent Group'));
      answer('showInformationMessage', (msg: string) => (assert.match(msg, /is ready: 2 machines/), undefined));
      const created = vscode.commands.executeCommand<{ outcome: string; group?: { name: string }; message: string }>('gpuRental.createFromTemplate', {
        template: '.gpu/group-it.json',
        pollIntervalMs: 500,
      });
      // The machines boot on the simulator's clock: move it on while the group waits.
      let done = false;
      void created.then(
        () => (done = true),
        () => (done = true),
      );
      while (!done) {
        await simControl().advance(20);
        await sleep(300);
      }
      const r = await created;
      assert.equal(r.outcome, 'ready', r.message);
      const name = r.group!.name;

      // One row for the group, its two members under it.
      await services.instances.refresh();
      const u = (await sessionUi<Ui>()).ui;
      const roots = (await u.instances.getChildren()) ?? [];
      const row = roots.find((n) => n.kind === 'group' && n.name === name);
      assert.ok(row, `no group row among ${JSON.stringify(roots)}`);
      let item = await u.instances.getTreeItem(row);
      // The cost ledger takes each list after it loads (its own bundle): a few more lists, never a wait for time.
      for (let k = 0; k < 20 && !/so far$/.test(String(item.description)); k++) {
        await services.instances.refresh();
        item = await u.instances.getTreeItem(row);
      }
      assert.equal(item.label, `Group ${name}`);
      assert.match(String(item.description), /^2\/2 running · \$\d+\.\d\d\/h in total · (≈ )?\$\d+\.\d\d so far$/);
      assert.match(String(item.tooltip), /Cost so far: (≈ )?\$\d+\.\d\d/);
      assert.equal(((await u.instances.getChildren(row)) ?? []).length, 2);
      assert.ok(!roots.some((n) => n.kind === 'instance' && row.ids!.includes(n.id!)), 'a member is also a row of its own');

      const ran = (await vscode.commands.executeCommand('gpuRental.runOnGroup', {
        group: name,
        command: 'echo rank=$NODE_RANK of=$NNODES master=$MASTER_ADDR nccl=$NCCL_SOCKET_IFNAME',
      })) as { runs: Array<{ code: number }>; lines: string[] };
      assert.deepEqual(
        ran.runs.map((x) => x.code),
        [0, 0],
      );
      const master = /master=(\S+)/.exec(ran.lines[0] ?? '')?.[1];
      assert.match(master ?? '', /^127\.\d+\.\d+\.\d+$/);
      assert.deepEqual([...ran.lines].sort(), [`[0] rank=0 of=2 master=${master} nccl=eth0`, `[1] rank=1 of=2 master=${master} nccl=eth0`]);
      await vscode.commands.executeCommand('notifications.clearAll');
      await sleep(500);
      assert.equal(await uiCheckpoint('group-run'), 'ok');

      answer('showWarningMessage', (msg: string) => (assert.match(msg, /^Destroy group ".*": all 2 machines/), 'Destroy Group'));
      capture('setStatusBarMessage');
      const d = (await vscode.commands.executeCommand('gpuRental.destroyGroup', { group: name })) as { destroyed: number[]; kept: number[] };
      assert.equal(d.destroyed.length, 2);
      // A routine success: a status bar confirmation, not a notification (the view shows the group gone).
      assert.ok(
        promptCalls.some((p) => p.kind === 'setStatusBarMessage' && /was destroyed \(2 machines\)/.test(p.text)),
        JSON.stringify(promptCalls),
      );
      assert.deepEqual(d.kept, []);
      await waitFor(async () => (await (await services.api()).listInstances()).instances.length === 0, 10_000, 'every member gone');
    },
    { timeoutMs: 120_000 },
  );

  it(
    'after a reload, a group that is not whole asks once: Keep leaves it under its row, Destroy Group destroys it',
    async () => {
      const ext = await getExtensionApi();
      const { services } = ext;
      home = (await signedInWithSshHome(services, 'gpu-rental-groups-resume-it-', { register: false })).home;
      // The seeding is the test's, not the extension's: a client of its own, not paced as the extension's is.
      const api = createApiClient({ baseUrl: simUrl(), credentials: { token: () => 'sim-api-key' }, log: silentLogger, pacing: 'off' });
      const offers = await api.searchOffers({ limit: 4 });
      assert.ok(offers.length >= 2, 'the simulator offers 2 machines');
      const control = simControl();
      // Two groups of 2 left renting by a reload: rank 0 was rented and runs, rank 1's create never went out.
      const seed = async (name: string, offer: (typeof offers)[number]) => {
        const id = (await api.createInstance(offer.id, { image: 'sim/base:1', label: `${name}-0`, disk: 10, runtype: 'ssh_direct' })).new_contract;
        await control.finishBoot(id);
        const members = [0, 1].map((rank) => ({ rank, label: `${name}-${rank}`, dphTotal: offer.dph_total, ...(rank === 0 ? { sent: true } : {}) }));
        const group = { name, overlayName: name, clusterId: 1, templatePath: '.gpu/group-it.json', count: 2, gpusPerNode: 1, members, createdAt: Date.now() };
        const record = { instanceId: id, label: `${name}-0`, templatePath: group.templatePath, ssh: {}, targetState: 'running', startedAt: Date.now() };
        return { group: { ...group, status: 'renting', masterPort: 29500 }, record, id };
      };
      const kept = await seed('gr-it-keep', offers[0]!);
      const gone = await seed('gr-it-gone', offers[1]!);
      // The service shows new machines late: the reload came after that.
      await control.advance(120);
      try {
        await services.globalState.update(GROUPS_STATE_KEY, [kept.group, gone.group]);
        await services.globalState.update(INFLIGHT_STATE_KEY, [kept.record, gone.record]);
        const decide = (msg: string) => (
          assert.match(msg, /^Group "gr-it-(keep|gone)": not all 2 machines started after the reload \(rank 1\)\. Destroy its 1 machine/),
          msg.includes('keep') ? 'Keep' : 'Destroy Group'
        );
        answer('showWarningMessage', decide, decide);
        capture('showInformationMessage', 'setStatusBarMessage');
        await ext.resumeInterrupted();
        assert.equal(promptCalls.filter((p) => p.kind === 'showWarningMessage').length, 2, 'one question per group');
        assert.ok(
          // A done confirmation, not a toast: the status bar says it (CONTRIBUTING, Notifications).
          promptCalls.some((p) => p.kind === 'setStatusBarMessage' && /Group "gr-it-gone" was destroyed \(1 machines\)/.test(p.text)),
          JSON.stringify(promptCalls),
        );

        // The service: the kept group's machine bills on, the destroyed group's is gone.
        const live = (await api.listInstances()).instances.map((i) => i.id);
        assert.ok(live.includes(kept.id) && !live.includes(gone.id), JSON.stringify(live));
        // The Instances view: the kept group is one row with its member under it; no row of the other.
        await services.instances.refresh();
        const u = (await sessionUi<Ui>()).ui;
        const roots = (await u.instances.getChildren()) ?? [];
        const row = roots.find((n) => n.kind === 'group' && n.name === 'gr-it-keep');
        assert.ok(row, `no group row among ${JSON.stringify(roots)}`);
        assert.deepEqual(
          ((await u.instances.getChildren(row)) ?? []).map((n) => n.id),
          [kept.id],
        );
        assert.ok(!roots.some((n) => n.name === 'gr-it-gone' || n.id === gone.id || n.id === kept.id), JSON.stringify(roots));
      } finally {
        await services.globalState.update(GROUPS_STATE_KEY, undefined);
        await dropRentalsAndSshHome(services, /^gr-it-/, home);
        home = undefined;
      }
    },
    { timeoutMs: 60_000 },
  );
});
