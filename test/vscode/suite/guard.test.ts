// The idle guard inside a real VS Code against the simulator (which runs onstart for real and
// serves SSH): a template with a guard creates an instance; its fake GPU goes idle; the warning
// appears; Keep Running (the snooze file, written over SSH) postpones the stop; then the
// watchdog on the instance stops it and the tree shows it stopped.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, sleep } from './framework';
import { simControl } from './sim';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/ssh/sshTypes';
import { createKeyPair } from '../../../src/ssh/keys';
import type { Instance } from '../../../src/api/types';
import { INFLIGHT_STATE_KEY, type CreateFlowResult } from '../../../src/create/createFlow';
import { KEEP_RUNNING } from '../../../src/guard/vscode/guardWarnings';
import { signInWithSimKey, signOutAndDropSshHome, tempSshHome } from './testKey';

const TEMPLATE = '.gpu/guard-it.json';
const IDLE_SECONDS = 8;
let home: string | undefined;
let templateFile: string | undefined;
let createdId: number | undefined;

interface TreeLike {
  getTreeItem(node: { kind: string; id?: number }): vscode.TreeItem | Thenable<vscode.TreeItem>;
}

describe('idle guard', () => {
  afterEach(async () => {
    const { services } = await getExtensionApi();
    const control = simControl();
    await control.runOnstart(false).catch(() => undefined);
    try {
      if (createdId !== undefined) await (await services.api()).destroyInstance(createdId);
    } catch {
      // gone or signed out already
    }
    createdId = undefined;
    await services.globalState.update(INFLIGHT_STATE_KEY, undefined);
    await services.globalState.update(SSH_OPTIONS_STATE_KEY, undefined);
    await vscode.workspace.getConfiguration('gpuRental').update('ssh.identityFile', undefined, vscode.ConfigurationTarget.Global);
    await signOutAndDropSshHome(services, home);
    if (templateFile) rmSync(templateFile, { force: true });
    home = templateFile = undefined;
  });

  it('warning before the guard acts; Keep Running postpones the stop; the watchdog then stops the instance and the tree shows it', async () => {
    const { services } = await getExtensionApi();
    const control = simControl();
    const set = tempSshHome('gpu-rental-guard-it-');
    home = set.home;
    const { w } = set;
    const key = await createKeyPair({ home, comment: 'gpu-rental-guard-it' });
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    templateFile = join(folder, TEMPLATE);
    writeFileSync(
      templateFile,
      JSON.stringify({
        name: 'Guarded box',
        offer: { gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2 },
        instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', label: 'guarded-it' },
        guard: { idleMinutes: 1, gpuUtilBelow: 10 },
      }),
    );
    // The key through the setting: every rewrite of the entry keeps it.
    await vscode.workspace.getConfiguration('gpuRental').update('ssh.identityFile', key.privatePath, vscode.ConfigurationTarget.Global);
    await signInWithSimKey(services);
    const api = await services.api();
    await api.addSshKey(key.line);
    // The watchdog ticks every second and acts after IDLE_SECONDS instead of the template's minute.
    await control.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: IDLE_SECONDS });
    const offers = await api.searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2, type: 'on-demand', order: [['dph_total', 'asc']] });
    assert.ok(offers.length > 0, 'no matching offer in the simulator');

    capture('showInformationMessage', 'showErrorMessage');
    const before = new Set(services.instances.instances.map((i) => i.id));
    const pending = vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.createFromTemplate', {
      template: TEMPLATE,
      offerId: offers[0]!.id,
      confirm: false,
      pollIntervalMs: 250,
    });
    const row = await waitFor(() => services.instances.instances.find((i) => !before.has(i.id) && /^guarded-it/.test(i.label ?? '')), 8000, 'the new row');
    createdId = row.id;
    await control.setGpuUtil(row.id, 90); // busy while it boots and the entry is written
    await control.advance(120);
    const r = await pending;
    assert.equal(r?.outcome, 'running', JSON.stringify(r && { ...r, instance: undefined }));
    const inst = (r as { instance: Instance }).instance;
    assert.match(inst.onstart ?? '', /gpu-rental\/guard\.sh/, 'the guard went in through onstart');

    // The row shows the guard.
    const tree = (services as unknown as { ui?: { instances: TreeLike } }).ui!.instances;
    await services.instances.refresh();
    const busyRow = await tree.getTreeItem({ kind: 'instance', id: inst.id });
    assert.match(String(busyRow.description), /guard: (stops after 1 idle min|watching)/);

    // The GPU goes idle: the warning comes, and Keep Running writes the snooze file over SSH.
    let warned = '';
    answer('showWarningMessage', (msg: string) => {
      warned = msg;
      return KEEP_RUNNING;
    });
    await control.setGpuUtil(inst.id, 0);
    const idleSince = Date.now();
    await services.instances.refresh();
    await waitFor(() => warned, 10_000, 'the guard warning');
    assert.match(warned, /idle guard will stop guarded-it/);
    await waitFor(() => services.guard.status(inst.id)?.text.includes('kept running until'), 10_000, 'the snooze written over SSH');

    // Past the moment the watchdog would have stopped it, it still runs.
    await sleep(Math.max(0, idleSince + (IDLE_SECONDS + 5) * 1000 - Date.now()));
    assert.equal((await api.showInstance(inst.id)).state, 'running', 'Keep Running postponed the stop');

    // Ending the snooze (the same command scripts use) lets the watchdog act.
    const ended = await vscode.commands.executeCommand<{ via: string } | undefined>('gpuRental.snoozeGuard', { instanceId: inst.id, minutes: 0 });
    assert.equal(ended?.via, 'ssh', JSON.stringify(promptCalls.filter((p) => p.kind !== 'showInformationMessage')) + readFileSync(w.configPath, 'utf8'));
    await waitFor(
      async () => {
        await services.instances.refresh();
        return services.instances.get(inst.id)?.state === 'stopped';
      },
      (IDLE_SECONDS + 15) * 1000,
      'the watchdog stopping the instance',
    );
    const stoppedRow = await tree.getTreeItem({ kind: 'instance', id: inst.id });
    assert.match(String(stoppedRow.description), /stopped/);
    const puts = (await control.requests()).filter((q) => q.method === 'PUT' && q.path === `/api/v0/instances/${inst.id}/`);
    assert.deepEqual(puts.map((q) => q.status), [200], 'one stop, by the watchdog');
  }, { timeoutMs: 90_000 });
});
