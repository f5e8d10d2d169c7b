// Issue 16 in a real VS Code against the simulator: Show Logs documents, the CLI query search
// filling the Offers view, reboot/recycle/bid on rows.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { describe, it, waitFor, answer, capture, promptCalls, uiCheckpoint, setUserSetting } from './framework';
import { simControl } from './sim';
import { rowOf, signIn, signInToSeeded, ui as sessionUi, type InstanceNode, type TreeLike, signOutAfterEach } from './session';

interface Ui {
  instances: TreeLike<InstanceNode>;
  offers: TreeLike<{ kind: string; id?: number; offer?: { num_gpus: number; gpu_ram?: number; dph_total: number } }> & {
    view?: vscode.TreeView<unknown>;
    busy?: boolean;
  };
}

const ui = () => sessionUi<Ui>();

describe("renters' tools", () => {
  signOutAfterEach('workbench.action.closeAllEditors');

  it(
    'Show Logs opens the container log from the simulator in a read-only log document; Refresh and the daemon log work',
    async () => {
      const { services } = await ui();
      await signInToSeeded(1);
      const inst = services.instances.instances[0];
      assert.ok(inst, 'a seeded instance');
      // the prompt path: which log?
      answer('showQuickPick', 'Container log');
      const doc = await vscode.commands.executeCommand<vscode.TextDocument>('gpuRental.showInstanceLogs', inst.id);
      assert.ok(doc, 'no document');
      assert.equal(doc.uri.scheme, 'gpu-rental-logs');
      assert.equal(doc.isUntitled, false);
      assert.equal(doc.languageId, 'log');
      await waitFor(() => /Instance ready/.test(doc.getText()), 15_000, 'the log text');
      assert.match(doc.getText(), new RegExp(`^# ${inst.label} \\(#${inst.id}\\) · container log · last 1000 lines · fetched `));
      assert.match(doc.getText(), /Container \d+ starting from vastai\/base-image/);
      assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString());
      await vscode.commands.executeCommand('notifications.clearAll');
      const shot = await uiCheckpoint('instance-logs');
      assert.ok(shot === 'ok' || shot === 'skipped', `log screenshot: ${shot}`);
      const again = await vscode.commands.executeCommand<string>('gpuRental.refreshInstanceLogs', doc.uri);
      assert.match(again ?? '', /Instance ready/);
      assert.equal(await vscode.commands.executeCommand('gpuRental.followInstanceLogs', doc.uri), true);
      assert.equal(services.logs.following().length, 1);
      assert.equal(await vscode.commands.executeCommand('gpuRental.stopFollowingInstanceLogs', doc.uri), true);
      assert.equal(services.logs.following().length, 0);
      // the scripted path: the daemon log, secrets masked
      const daemon = await vscode.commands.executeCommand<vscode.TextDocument>('gpuRental.showInstanceLogs', { id: inst.id, daemon: true, tail: 20 });
      await waitFor(() => /pulling image/.test(daemon!.getText()), 15_000, 'the daemon log');
      assert.match(daemon!.getText(), /CONTAINER_API_KEY=\*\*\*/);
      assert.notEqual(daemon!.uri.toString(), doc.uri.toString());
    },
    { timeoutMs: 40_000 },
  );

  it(
    'a query-string search fills the Offers view; the input box points at a bad token',
    async () => {
      const { services, ui: u } = await ui();
      await signIn();
      const offers = await vscode.commands.executeCommand<Array<{ num_gpus: number; gpu_ram?: number; dph_total: number }>>(
        'gpuRental.searchOffersQuery',
        'num_gpus>=2 gpu_ram>=24 dph<5 -o dph',
      );
      assert.ok(offers && offers.length > 0, 'no offers');
      const nodes = (await u.offers.getChildren()) ?? [];
      const rows = nodes.filter((n) => n.kind === 'offer');
      assert.equal(rows.length, offers.length, 'the Offers view shows the search result');
      for (const o of offers) assert.ok(o.num_gpus >= 2 && (o.gpu_ram ?? 0) >= 24_000 && o.dph_total < 5);
      assert.deepEqual(
        offers.map((o) => o.dph_total),
        [...offers.map((o) => o.dph_total)].sort((a, b) => a - b),
        'sorted by price (-o dph)',
      );
      assert.equal(services.offers.query?.text, 'num_gpus>=2 gpu_ram>=24 dph<5 -o dph');
      assert.equal(u.offers.view?.description?.startsWith('num_gpus>=2 gpu_ram>=24 dph<5 -o dph'), true, 'the view says which query it shows');

      // through the input box: a typo is refused with the token's column, the fixed query runs
      let verdict: unknown;
      answer('showInputBox', async (opts: vscode.InputBoxOptions) => {
        verdict = await opts.validateInput?.('num_gpus>=1 gpu_nme=RTX_4090');
        return 'num_gpus>=1 gpu_name=RTX_4090';
      });
      const second = await vscode.commands.executeCommand<Array<{ gpu_name: string }>>('gpuRental.searchOffersQuery');
      assert.match(JSON.stringify(verdict), /Unknown field 'gpu_nme' at column 13\. Did you mean 'gpu_name'\?/);
      assert.ok(second && second.length > 0 && second.every((o) => o.gpu_name === 'RTX 4090'));
      // the scripting command takes the same string, and the service's own filter object
      const svc = await vscode.commands.executeCommand<Array<{ num_gpus: number }>>('gpuRental.searchOffers', {
        num_gpus: { gte: 4 },
        order: [['dph_total', 'asc']],
      });
      assert.ok(svc && svc.length > 0 && svc.every((o) => o.num_gpus >= 4));
      // a scripted query with a mistake searches nothing and says why; so does a search the service refuses
      capture('showErrorMessage');
      assert.equal(await vscode.commands.executeCommand('gpuRental.searchOffersQuery', 'gpu_nme=RTX_4090'), undefined);
      await simControl().fault({ kind: 'http_error', status: 400, error: 'bad_request', msg: 'no such filter', path: '/api/v0/bundles/', count: 1 });
      assert.equal(await vscode.commands.executeCommand('gpuRental.searchOffersQuery', 'num_gpus>=1'), undefined);
      const errors = promptCalls.filter((p) => p.kind === 'showErrorMessage').map((p) => p.text);
      assert.equal(errors.length, 2, errors.join('\n'));
      assert.match(errors[0]!, /^Search Offers: Unknown field 'gpu_nme'/);
      assert.match(errors[1]!, /^Could not search offers: .*no such filter/);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'while a new search waits out a 429 the Offers view shows its progress bar, not the previous offers',
    async () => {
      const { services, ui: u } = await ui();
      await signIn();
      await simControl().setRateLimits({ search: 3 });
      try {
        const first = await vscode.commands.executeCommand<unknown[]>('gpuRental.searchOffersQuery', 'num_gpus>=1 -o dph');
        assert.ok(first && first.length > 0);
        await waitFor(async () => ((await u.offers.getChildren()) ?? []).some((n) => n.kind === 'offer'), 5000, 'the first offers');
        const pending = vscode.commands.executeCommand<unknown[]>('gpuRental.searchOffersQuery', 'num_gpus>=2 -o dph');
        await waitFor(() => services.offers.searching, 5000, 'the second search to start');
        await new Promise((r) => setTimeout(r, 500)); // its 429 came back; the client waits before retrying
        assert.equal(services.offers.searching, true, 'still waiting out the 429');
        const rows = ((await u.offers.getChildren()) ?? []).filter((n) => n.kind === 'offer');
        assert.equal(rows.length, 0, "the previous query's offers are not shown under the new title");
        assert.equal(u.offers.busy, true, "the view's progress bar runs (withProgress on the view)");
        assert.equal(u.offers.view?.message, undefined, 'no text message for a load (V5 of the UX audit)');
        assert.ok(u.offers.view?.description?.startsWith('num_gpus>=2'), `the view is titled "${u.offers.view?.description}"`);
        const second = await pending;
        assert.ok(second && second.length > 0);
        await waitFor(async () => ((await u.offers.getChildren()) ?? []).filter((n) => n.kind === 'offer').length === second.length, 5000, 'the new offers');
        assert.equal(u.offers.busy, false, 'the progress bar ends with the search');
      } finally {
        await simControl().setRateLimits('off');
      }
    },
    { timeoutMs: 40_000 },
  );

  it(
    'reboot shows rebooting, recycle confirms naming the data loss, an outbid row offers Change Bid',
    async () => {
      const { services, ui: u } = await ui();
      await signIn();
      const api = await services.api();
      const [bidOffer] = await api.searchOffers({ type: 'bid', limit: 1 });
      assert.ok(bidOffer);
      const created = await api.createInstance(bidOffer.id, { image: 'vastai/base-image:cuda-12.4.1-auto', price: bidOffer.dph_total, label: 'bid-test' });
      const id = created.new_contract;
      await simControl().finishBoot(id);
      // the live service lists a new instance a few seconds late (the simulator's today era: 3 s of its clock)
      await simControl().advance(4);
      await services.instances.refresh();

      answer('showWarningMessage', 'Reboot');
      assert.equal(await vscode.commands.executeCommand('gpuRental.rebootInstance', id), true);
      await waitFor(async () => services.instances.get(id)?.state === 'rebooting', 10_000, 'rebooting');
      assert.match(String((await rowOf(u, id))?.description), /rebooting/);

      answer('showQuickPick', (items: vscode.QuickPickItem[], opts: vscode.QuickPickOptions) => {
        assert.match(`${opts.title} ${items[1]?.detail}`, /lost|deleted/);
        assert.match(items[0]!.label, /Cancel$/, 'Cancel first: Enter keeps the data');
        return undefined; // the user backs out: nothing is sent
      });
      assert.equal(await vscode.commands.executeCommand('gpuRental.recycleInstance', id), false);
      assert.equal((await simControl().requests()).filter((r) => r.path.includes('/recycle/')).length, 0);

      const minBid = await simControl().outbid(id);
      capture('showWarningMessage'); // the outbid notification (src/billing/vscode/idleBilling.ts)
      await services.instances.refresh();
      const row = await waitFor(
        async () => {
          const r = await rowOf(u, id);
          return r && /outbid/.test(String(r.description)) ? r : undefined;
        },
        10_000,
        'the outbid row',
      );
      assert.match(String(row.contextValue), /^instance\.stopped\.bid\.outbid$/);
      await waitFor(() => promptCalls.some((p) => p.kind === 'showWarningMessage' && /was outbid/.test(p.text)), 10_000, 'one outbid notification');
      await services.instances.refresh();
      assert.equal(promptCalls.filter((p) => /was outbid/.test(p.text)).length, 1, 'told once');
      let prompt = '';
      answer('showInputBox', (opts: vscode.InputBoxOptions) => {
        prompt = String(opts.prompt);
        return String(minBid);
      });
      assert.equal(await vscode.commands.executeCommand('gpuRental.changeBid', id), true);
      assert.match(prompt, /Outbid/);
      assert.match(prompt, new RegExp(`minimum now \\$${minBid.toFixed(3).replace('.', '\\.')}/h`));
      await services.instances.refresh();
      assert.notEqual(services.instances.get(id)?.state, 'stopped', 'a bid at the minimum runs it again');
    },
    { timeoutMs: 40_000 },
  );
});

describe('server templates and followed logs', () => {
  signOutAfterEach('workbench.action.closeAllEditors', () => setUserSetting('gpuRental', 'logs.followIntervalSeconds', undefined));

  it(
    'Browse Server Templates: the pick list shows recommended ones with image and ports; save writes a .gpu template; rent creates with template_hash_id',
    async () => {
      const { services } = await ui();
      await signIn();
      // the interactive path: recommended first, each with its facts; Escape on the action list
      let labels: string[] = [];
      let details: string[] = [];
      const hide = vscode.window.createQuickPick;
      (vscode.window as { createQuickPick: unknown }).createQuickPick = () => {
        const qp = hide();
        const show = qp.show.bind(qp);
        qp.show = () => {
          show();
          waitFor(() => qp.items.some((i) => i.label === 'pytorch-cuda12'), 10_000, 'templates').then(
            () => {
              labels = qp.items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).map((i) => i.label);
              details = qp.items.map((i) => i.detail ?? '');
              qp.hide(); // Escape: nothing is picked
            },
            () => qp.hide(),
          ); // not listed in time: the labels stay empty and the assertions below say so
        };
        return qp;
      };
      try {
        assert.equal(await vscode.commands.executeCommand('gpuRental.browseServerTemplates'), undefined);
      } finally {
        (vscode.window as { createQuickPick: unknown }).createQuickPick = hide;
      }
      assert.deepEqual(labels.slice(1), ['jupyter-lab', 'pytorch-cuda12', 'tensorflow-jupyter'], 'recommended, by name');
      assert.ok(
        details.some((d) => /pytorch\/pytorch:2\.5\.1-cuda12\.4-cudnn9-runtime · runtype ssh_direct · ports 8888 · onstart: env >> \/etc\/environment/.test(d)),
        details.join(' | '),
      );

      const hash = [...services.serverTemplates.values()].find((t) => t.name === 'pytorch-cuda12')!.hash_id;
      const saved = await vscode.commands.executeCommand<vscode.Uri>('gpuRental.browseServerTemplates', { hashId: hash, action: 'save' });
      assert.ok(saved && /\.gpu\/pytorch-cuda12(-\d+)?\.json$/.test(saved.path), String(saved));
      const json = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(saved)));
      assert.deepEqual(json.instance, { template_hash_id: hash, disk: 32 });
      await vscode.workspace.fs.delete(saved);

      const [offer] = await (await services.api()).searchOffers({ limit: 1 });
      const pending = vscode.commands.executeCommand<{ outcome: string; instance?: { id: number } }>('gpuRental.browseServerTemplates', {
        hashId: hash,
        action: 'rent',
        offerId: offer!.id,
        confirm: false,
      });
      // Once rented, let it boot on the simulator's clock instead of waiting out the boot in real time.
      await waitFor(
        async () => (await simControl().requests()).some((r) => r.method === 'PUT' && r.path.includes(`/asks/${offer!.id}/`)),
        15_000,
        'the rent request',
      );
      await simControl().advance(120);
      const result = await pending;
      assert.equal(result?.outcome, 'running', JSON.stringify(result));
      const created = await (await services.api()).showInstance(result!.instance!.id);
      assert.equal(created.template_hash_id, hash);
      assert.equal(created.image_uuid, 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime', 'the image came from the service template');
    },
    { timeoutMs: 120_000 },
  );

  it(
    'a followed log is fetched again while visible',
    async () => {
      const { services } = await ui();
      await vscode.workspace.getConfiguration('gpuRental').update('logs.followIntervalSeconds', 3, vscode.ConfigurationTarget.Global);
      await signInToSeeded(1);
      const id = services.instances.instances[0]!.id;
      const doc = await vscode.commands.executeCommand<vscode.TextDocument>('gpuRental.showInstanceLogs', { id, tail: 5 });
      await waitFor(() => /Instance ready|\[monitor\]/.test(doc!.getText()), 15_000, 'the log text');
      const count = async () => (await simControl().requests()).filter((r) => r.path.includes('/request_logs/')).length;
      const before = await count();
      assert.equal(await vscode.commands.executeCommand('gpuRental.followInstanceLogs', doc!.uri), true);
      await waitFor(() => / · following every 3 s/.test(doc!.getText()), 5_000, 'the header says it follows');
      await waitFor(async () => (await count()) >= before + 3, 15_000, 'three more fetches while visible');
      // hidden behind another editor: no more fetches
      const [other] = await vscode.workspace.findFiles('.gpu/*.json', undefined, 1);
      await vscode.window.showTextDocument(other!, { preview: false });
      await new Promise((r) => setTimeout(r, 1_000));
      const hidden = await count();
      await new Promise((r) => setTimeout(r, 4_000));
      assert.ok((await count()) <= hidden + 1, 'a background tab is not fetched');
      await vscode.commands.executeCommand('gpuRental.stopFollowingInstanceLogs', doc!.uri);
    },
    { timeoutMs: 60_000 },
  );
});
