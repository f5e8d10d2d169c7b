// Money guarantees inside a real VS Code against the simulator: a double click on Recycle (or
// Destroy) sends one request, the second click is told so; a rental the service shows late is
// adopted by the in-flight watcher with an "arrived late" notification, its row and SSH entry.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls } from './framework';
import { simControl, runningInstance } from './sim';
import { dropRentalsAndSshHome, signedInWithSshHome } from './testKey';
import { INFLIGHT_STATE_KEY, readInflight } from '../../../src/create/createFlow';
import { keepWatching } from '../../../src/create/vscode/inflightWatcher';

let home: string | undefined;

describe('templates: in-flight guard and late machines', () => {
  afterEach(async () => {
    await dropRentalsAndSshHome((await getExtensionApi()).services, /^(guard|late)-it-/, home);
    home = undefined;
  });

  it(
    'a double click on Recycle asks once and sends one recycle request; the second click says one is in progress (in the status bar)',
    async () => {
      const { services } = await getExtensionApi();
      home = (await signedInWithSshHome(services, 'gpu-rental-guard-it-', { register: false })).home;
      const inst = await runningInstance(services, 'guard-it-recycle');
      capture('setStatusBarMessage');
      let release: (v: boolean) => void = () => undefined;
      const confirmed = new Promise<boolean>((r) => (release = r));
      // the first click's confirmation (a quick pick: Cancel first) stays open until released
      answer('showQuickPick', async (items: unknown[]) =>
        (await confirmed) ? items.find((i) => /Recycle and Lose Data/.test((i as { label: string }).label)) : undefined,
      );
      const first = vscode.commands.executeCommand<boolean>('gpuRental.recycleInstance', inst.id);
      await waitFor(() => promptCalls.some((p) => p.kind === 'showQuickPick' && /Recycle/.test(p.text)), 5000, 'the confirmation');
      const second = await vscode.commands.executeCommand<boolean>('gpuRental.recycleInstance', inst.id);
      assert.equal(second, false, 'the second click sends nothing');
      assert.ok(
        promptCalls.some((p) => p.kind === 'setStatusBarMessage' && /Recycle of ".*" \(#\d+\) is still in progress/.test(p.text)),
        JSON.stringify(promptCalls),
      );
      assert.equal(promptCalls.filter((p) => p.kind === 'showQuickPick').length, 1, 'one confirmation only');
      release(true);
      assert.equal(await first, true);
      const recycles = (await simControl().requests()).filter((r) => r.path.includes('/recycle/'));
      assert.equal(recycles.length, 1, 'one recycle request for the double click');
      // and once it is done, the next click is served again (scripted, no confirmation)
      assert.equal(await vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true }), true);
    },
    { timeoutMs: 40_000 },
  );

  it(
    'two Destroy calls at once send one destroy request',
    async () => {
      const { services } = await getExtensionApi();
      home = (await signedInWithSshHome(services, 'gpu-rental-guard-it-', { register: false })).home;
      const inst = await runningInstance(services, 'guard-it-destroy');
      capture('showInformationMessage');
      const both = await Promise.all([
        vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true }),
        vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true }),
      ]);
      assert.deepEqual([...both].sort(), [false, true]);
      const destroys = (await simControl().requests()).filter((r) => r.method === 'DELETE' && r.path.includes(`/instances/${inst.id}`));
      assert.equal(destroys.length, 1);
    },
    { timeoutMs: 40_000 },
  );

  it(
    'a rental the service shows late is adopted by the in-flight watcher: row, SSH entry, and an "arrived late" notification',
    async () => {
      const { services } = await getExtensionApi();
      const set = await signedInWithSshHome(services, 'gpu-rental-late-it-');
      home = set.home;
      const control = simControl();
      const api = await services.api();
      const [offer] = await api.searchOffers({ limit: 1 });
      assert.ok(offer);
      await control.fault({ kind: 'hidden', seconds: 600 });
      const label = 'late-it-' + Math.random().toString(36).slice(2, 6);
      const id = (await api.createInstance(offer.id, { image: 'pytorch/pytorch', label, disk: 10, runtype: 'ssh_direct' })).new_contract;
      // What the create flow leaves when it stopped waiting: the rental in flight, marked late.
      await services.globalState.update(INFLIGHT_STATE_KEY, [
        { instanceId: id, label, templatePath: '.gpu/pytorch.json', ssh: {}, targetState: 'running', startedAt: Date.now(), late: true },
      ]);
      capture('showWarningMessage');
      const watching = keepWatching(services);
      await control.advance(700); // the service shows it, booted
      await watching;
      const note = promptCalls.find((p) => p.kind === 'showWarningMessage' && /arrived late/.test(p.text));
      assert.ok(note, JSON.stringify(promptCalls));
      assert.match(note.text, new RegExp(`Instance ${id} \\("${label}"\\) arrived late.*Instances view, with its SSH entry`));
      // The record was dropped before the notice, and must stay dropped: VS Code's globalState echoes
      // each stored write back, and an echo of the seen mark (written while the instance was polled)
      // once put the record back for good (see src/create/inflight.ts).
      await waitFor(() => readInflight(services.globalState).length === 0, 5000, 'no rental in flight').catch((e: Error) => {
        throw new Error(`${e.message}; left: ${JSON.stringify(readInflight(services.globalState))}`);
      });
      assert.ok(await set.w.findEntry(id), 'the SSH entry was written');
      await services.instances.refresh();
      assert.ok(services.instances.get(id), 'the row is shown');
    },
    { timeoutMs: 60_000 },
  );
});
