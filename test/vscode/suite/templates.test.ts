// Create from a workspace template inside a real VS Code against the simulator: reaches
// running, writes the Remote-SSH entry (real writer, temporary HOME) and shows the row; an
// instance that exits while booting is destroyed and another offer is rented; cancelling
// after renting asks keep/destroy and honours the answer.
import * as assert from 'node:assert/strict';
import { sshAddress } from '../../../src/ssh/address';
import * as vscode from 'vscode';
import { writeFileSync } from 'node:fs';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, sleep } from './framework';
import { simControl, type SimControl } from './sim';
import { writeWorkspaceTemplate } from './session';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';

import type { Instance } from '../../../src/api/types';
import type { Services } from '../../../src/core/vscode/services';
import { dropRentalsAndSshHome, signedInWithSshHome } from './testKey';
import { readInflight, type CreateFlowResult } from '../../../src/create/createFlow';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

const TEMPLATE = '.gpu/pytorch.json';
const LABEL = /^PyTorch-on-one-RTX-4090-[0-9a-z]{4}$/;
let home: string | undefined;

async function setUp(): Promise<{ services: Services; w: SshConfigWriter; control: SimControl; offerId: number }> {
  const { services } = await getExtensionApi();
  // The first rent of a session checks the account's SSH keys: one of this home is registered.
  const set = await signedInWithSshHome(services, 'gpu-rental-tpl-it-');
  home = set.home;
  const w = set.w;
  const api = await services.api();
  const offers = await api.searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2, type: 'on-demand', order: [['dph_total', 'asc']] });
  assert.ok(offers.length >= 2, 'the simulator has fewer than two matching offers');
  return { services, w, control: simControl(), offerId: offers[0]!.id };
}

const seen = new Set<number>();

/** Rows the create flow put into the Instances store since the last forget() (labels carry the template's unique suffix). */
function created(services: Services): Instance[] {
  return services.instances.instances.filter((i) => LABEL.test(i.label ?? '') && !seen.has(i.id));
}

function forget(services: Services): void {
  for (const i of services.instances.instances) seen.add(i.id);
}

function start(services: Services, args: Record<string, unknown>): Thenable<CreateFlowResult | undefined> {
  forget(services);
  return vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.createFromTemplate', { template: TEMPLATE, pollIntervalMs: 250, ...args });
}

/**
 * Creates from the template on `offerId` without a confirmation, waits for the new row (`seen`
 * gets it before the instance boots), lets it boot (120 s of the simulator's clock) and returns the
 * running result, which must be for that row.
 */
async function createRunning(
  services: Services,
  control: SimControl,
  offerId: number,
  seen?: (row: Instance) => void,
): Promise<Extract<CreateFlowResult, { outcome: 'running' }>> {
  capture('showInformationMessage');
  const pending = start(services, { offerId, confirm: false });
  const row = await waitFor(() => created(services)[0], 8000, 'the new row');
  seen?.(row);
  await control.advance(120);
  const r = await pending;
  assert.ok(r?.outcome === 'running', JSON.stringify(r && { ...r, instance: undefined }));
  assert.equal(r.instance.id, row.id);
  return r;
}

describe('templates', () => {
  afterEach(async () => {
    await dropRentalsAndSshHome((await getExtensionApi()).services, LABEL, home);
    home = undefined;
  });

  it(
    'create from a sample template with {template, offerId, confirm:false} reaches running, writes the entry and shows the row',
    async () => {
      const { services, w, control, offerId } = await setUp();
      // the row is there while the instance is still provisioning
      const r = await createRunning(services, control, offerId, (row) => assert.notEqual(row.state, 'running'));
      const entry = await w.findEntry(r.instance.id);
      assert.ok(entry, 'SSH entry written');
      assert.equal(entry.alias, r.alias);
      // where the service's rule says SSH listens (direct 22/tcp here, with the proxy as fallback)
      const addr = sshAddress(r.instance)!;
      assert.equal(entry.hostName, addr.host);
      assert.equal(entry.port, addr.port);
      assert.deepEqual(services.globalState.get(SSH_OPTIONS_STATE_KEY), { [String(r.instance.id)]: { remoteFolder: '/workspace' } });
      assert.deepEqual(readInflight(services.globalState), []);
      assert.ok(promptCalls.some((p) => p.kind === 'showInformationMessage' && /is running/.test(p.text)));
    },
    { timeoutMs: 40_000 },
  );

  it(
    'seed era (service-api.md, no v1 list): create from template → running → SSH entry → stop/start → destroy',
    async () => {
      const { services, w, control, offerId } = await setUp();
      await control.setEra('seed');
      try {
        const r = await createRunning(services, control, offerId);
        const entry = await w.findEntry(r.instance.id);
        const addr = sshAddress(r.instance)!;
        assert.ok(entry, 'SSH entry written');
        assert.deepEqual([entry.hostName, entry.port], [addr.host, addr.port]);
        // the seed's service has no v1: the extension read the v0 list after a plain 404
        await services.instances.refresh();
        const paths = (await control.requests()).map((q) => `${q.method} ${q.path} ${q.status}`);
        assert.ok(paths.includes('GET /api/v1/instances/ 404'), 'asked v1 once');
        assert.ok(paths.includes('GET /api/v0/instances/ 200'), 'then read the v0 list');
        const id = r.instance.id;
        const api = await services.api();
        assert.equal(await vscode.commands.executeCommand('gpuRental.stopInstance', id), true);
        assert.equal((await api.showInstance(id)).intended_status, 'stopped');
        assert.equal(await vscode.commands.executeCommand('gpuRental.startInstance', id), true);
        await control.finishBoot(id);
        assert.equal((await api.showInstance(id)).state, 'running');
        assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', { id, skipConfirmation: true }), true);
        assert.equal(
          (await api.listInstances()).instances.some((i) => i.id === id),
          false,
        );
        // the entry goes once the list has confirmed the instance is gone (src/ssh/entrySync.ts)
        await waitFor(
          async () => {
            await services.instances.refresh();
            await new Promise((r) => setTimeout(r, 1300)); // past the entry sync's 1 s debounce
            return (await w.findEntry(id)) === undefined;
          },
          15_000,
          'the entry removed',
        );
      } finally {
        await control.setEra('today');
      }
    },
    { timeoutMs: 75_000 },
  );

  it(
    'the Include question is asked once: not by the creation (no toast), then by Connect in a modal',
    async () => {
      const { services, w, control, offerId } = await setUp();
      writeFileSync(w.userConfigPath, 'Host *\n  ServerAliveInterval 60\n'); // no Include line yet
      await services.globalState.update('gpuRental.ssh.includeDeclined', undefined);
      capture('showInformationMessage', 'showWarningMessage');
      try {
        const pending = start(services, { offerId, confirm: false });
        await waitFor(() => created(services)[0], 8000, 'the new row');
        await control.advance(120);
        const r = await Promise.race([pending, new Promise<'stuck'>((res) => setTimeout(() => res('stuck'), 10_000))]);
        assert.notEqual(r, 'stuck', 'the creation finished');
        assert.equal((r as CreateFlowResult).outcome, 'running');
        const id = (r as CreateFlowResult & { instance: Instance }).instance.id;
        assert.ok(await w.findEntry(id), 'SSH entry written');
        const includeQuestions = () => promptCalls.filter((p) => /Include line/.test(p.text));
        assert.deepEqual(includeQuestions(), [], 'the creation asked nothing about the Include line');
        // Connect (Remote-SSH assumed) asks it: once, and as a modal it waits for.
        let modal: unknown;
        answer('showInformationMessage', (msg: string, opts: vscode.MessageOptions | undefined) => {
          assert.match(msg, /Add one Include line/);
          modal = opts?.modal;
          return 'Not Now';
        });
        const c = (await vscode.commands.executeCommand('gpuRental.connect', id, { assumeRemoteSsh: true })) as { action: string };
        assert.equal(c.action, 'cancelled');
        assert.equal(modal, true);
        assert.equal(includeQuestions().length, 1, 'one question in all');
      } finally {
        await services.globalState.update('gpuRental.ssh.includeDeclined', undefined);
      }
    },
    { timeoutMs: 40_000 },
  );

  it(
    'an instance that exits while booting: a script keeps it and rents nothing else; a click asks, and Destroy and Rent Next Match does both',
    async () => {
      const { services, control, offerId } = await setUp();
      capture('showInformationMessage', 'showErrorMessage');
      // Scripted: kept, named, nothing else rented or destroyed (before: destroyed, and the next match rented unasked).
      const pending = start(services, { offerId, confirm: false });
      const first = await waitFor(() => created(services)[0], 8000, 'the first row');
      await control.fault({ kind: 'instance_state', id: first.id, state: 'exited' });
      const r = await pending;
      assert.equal(r?.outcome, 'failed', JSON.stringify(r));
      assert.ok(r?.outcome === 'failed' && r.keptId === first.id && r.bootFailed?.status === 'exited');
      const live = async () => (await (await services.api()).listInstances()).instances.map((i) => i.id);
      assert.ok((await live()).includes(first.id), 'the failed instance is kept');
      assert.deepEqual(
        created(services).map((i) => i.id),
        [first.id],
        'nothing else was rented',
      );
      assert.ok(
        promptCalls.some((p) => p.kind === 'showErrorMessage' && new RegExp(`Instance ${first.id}.*"exited".*kept`).test(p.text)),
        'the user is told',
      );
      // A click: one modal question; "Destroy and Rent Next Match" destroys it and rents the next one.
      let question = '';
      answer('showWarningMessage', 'Rent', (msg: string, _o: vscode.MessageOptions, ...items: Array<vscode.MessageItem & { value?: string }>) => {
        question = msg;
        return items.find((i) => /^Destroy and Rent Next Match \(\$[\d.]+\/h\)$/.test(i.title));
      });
      // (its offer is the kept instance's now: the click rents the next cheapest)
      const offers = await (
        await services.api()
      ).searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2, type: 'on-demand', order: [['dph_total', 'asc']] });
      const clicked = start(services, { offerId: offers.find((o) => o.id !== offerId)!.id });
      const one = await waitFor(() => created(services)[0], 8000, 'the clicked row').catch((e: Error) => {
        throw new Error(`${e.message}; prompts: ${JSON.stringify(promptCalls)}`);
      });
      await control.fault({ kind: 'instance_state', id: one.id, state: 'exited' });
      const two = await waitFor(() => created(services).find((i) => i.id !== one.id), 15_000, 'the next rental, as chosen');
      await control.advance(120);
      const r2 = await clicked;
      assert.match(question, new RegExp(`Instance ${one.id} .*became "exited" while starting.*bills \\$`));
      assert.ok(r2?.outcome === 'running' && r2.instance.id === two.id && r2.attempts === 2, JSON.stringify(r2 && { ...r2, instance: undefined }));
      assert.ok(!(await live()).includes(one.id), 'destroyed after the yes');
    },
    { timeoutMs: 60_000 },
  );

  it(
    'Rent This Offer with an offer outside the template: refused with the reasons when scripted, asked (and Escape rents nothing) otherwise',
    async () => {
      const { services } = await setUp();
      const api = await services.api();
      const [far] = await api.searchOffers({ gpuNames: ['H100 SXM'], order: [['dph_total', 'desc']], limit: 1 });
      assert.ok(far, 'no H100 offer in the simulator');
      forget(services);
      capture('showErrorMessage');
      const scripted = await vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.rentOffer', far.id, {
        template: TEMPLATE,
        confirm: false,
      });
      assert.equal(scripted?.outcome, 'failed', JSON.stringify(scripted));
      assert.match(scripted?.outcome === 'failed' ? scripted.message : '', /does not fit template.*gpuNames.*Nothing was rented/);
      assert.ok(
        promptCalls.some((p) => p.kind === 'showErrorMessage' && /does not fit template/.test(p.text)),
        'the user is told why',
      );
      let asked = '';
      answer('showWarningMessage', (msg: string, opts: { detail?: string }) => {
        asked = `${msg}\n${opts?.detail ?? ''}`;
        return undefined; // Escape
      });
      const interactive = await vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.rentOffer', { offer: far }, { template: TEMPLATE });
      assert.equal(interactive?.outcome, 'cancelled', JSON.stringify(interactive));
      assert.match(asked, /does not fit template[\s\S]*gpuNames/);
      assert.deepEqual(created(services), [], 'nothing was rented');
    },
    { timeoutMs: 30_000 },
  );

  for (const choice of ['Destroy', 'Keep'] as const) {
    it(
      `cancel after renting asks keep or destroy and honours "${choice}"`,
      async () => {
        const { services, offerId } = await setUp();
        capture('showInformationMessage');
        answer('showWarningMessage', (msg: string, opts: vscode.MessageOptions, ...items: vscode.MessageItem[]) => {
          assert.match(msg, /already rented and billing\. Destroy it, or keep it and decide later\?/);
          // Two clear answers; "Keep (decide later)" is the close affordance, so no ambiguous Cancel is added.
          assert.deepEqual(
            items.map((i) => [i.title, !!i.isCloseAffordance]),
            [
              ['Destroy', false],
              ['Keep (decide later)', true],
            ],
          );
          assert.equal(opts.modal, true);
          return items.find((i) => i.title.startsWith(choice));
        });
        const ac = new AbortController();
        const pending = start(services, { offerId, confirm: false, signal: ac.signal });
        const row = await waitFor(() => created(services)[0], 8000, 'the new row');
        ac.abort();
        const r = await pending;
        assert.equal(r?.outcome, 'cancelled');
        // The live service lists a new instance a few seconds late (the simulator: 3 s of its clock).
        await simControl().advance(5);
        const live = (await (await services.api()).listInstances()).instances.map((i) => i.id);
        if (choice === 'Destroy') {
          assert.ok(r?.outcome === 'cancelled' && r.destroyedId === row.id);
          assert.ok(!live.includes(row.id));
          assert.deepEqual(readInflight(services.globalState), []);
        } else {
          assert.ok(r?.outcome === 'cancelled' && r.keptId === row.id);
          assert.ok(live.includes(row.id));
          assert.deepEqual(
            readInflight(services.globalState).map((x) => x.instanceId),
            [row.id],
          );
          assert.ok(services.instances.get(row.id), 'the kept instance stays in the Instances view');
        }
      },
      { timeoutMs: 30_000 },
    );
  }
});

describe('template editing', () => {
  it(
    'a template file is JSONC, and its problems show as diagnostics with their JSON paths',
    async () => {
      const { services } = await getExtensionApi();
      const uri = await writeWorkspaceTemplate(
        'it-broken.json',
        '{\n  // comments are allowed\n  "name": "broken",\n  "colour": "red",\n  "instance": { "image": "x", "args_str": "serve", "env": { "-e A=1": "" } },\n}\n',
      );
      try {
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc);
        assert.equal(doc.languageId, 'jsonc');
        const ours = await waitFor(
          () => {
            const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'GPU Rental template');
            return d.length >= 3 ? d : undefined;
          },
          8000,
          'template diagnostics',
        );
        const text = ours.map((d) => d.message).join('\n');
        assert.match(text, /^colour: Unknown property/m);
        assert.match(text, /^instance\.args_str: /m);
        assert.match(text, /^instance\.env\["-e A=1"\]: /m);
        const colour = ours.find((d) => d.message.startsWith('colour'))!;
        assert.equal(doc.getText(colour.range), '"colour"');
        // One diagnostic per mistake: the contributed JSON Schema documents and completes, and does not check too.
        await sleep(1500); // the JSON language service reports on its own schedule
        const all = vscode.languages.getDiagnostics(uri);
        const others = all.filter((d) => d.source !== 'GPU Rental template');
        assert.deepEqual(
          others.map((d) => `${d.source}: ${d.message}`),
          [],
          'no second report of the same mistakes',
        );
        // Deleting the file takes its problems with it (VS Code disposes the closed document only later).
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await vscode.workspace.fs.delete(uri);
        await waitFor(() => vscode.languages.getDiagnostics(uri).length === 0, 5000, "the deleted template's problems to leave the Problems view");
        // A secret change re-checks open templates (their ${secret:…}): the deleted one's document lingers but stays quiet.
        await services.secrets.store('it-poke', '1');
        await services.secrets.delete('it-poke');
        await sleep(1200); // past the 400 ms re-check debounce
        assert.deepEqual(vscode.languages.getDiagnostics(uri), [], 'the deleted template is not checked again');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
      }
    },
    { timeoutMs: 20_000 },
  );

  it(
    "a template renting with a service template gets its guard diagnostics from that template's onstart: one that cannot be read is information, not an error",
    async () => {
      const uri = await writeWorkspaceTemplate(
        'it-server.json',
        '{\n  "name": "server",\n  "instance": { "image": "x", "template_hash_id": "it-no-such-template" }\n}\n',
      );
      try {
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc);
        const d = await waitFor(
          () => vscode.languages.getDiagnostics(uri).find((x) => x.source === 'GPU Rental template'),
          8000,
          "the service template's diagnostic",
        );
        assert.match(d.message, /^instance\.template_hash_id: The start script of the service's template it-no-such-template could not be read/);
        assert.equal(d.severity, vscode.DiagnosticSeverity.Information);
        assert.equal(doc.getText(d.range), '"template_hash_id"');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
      }
    },
    { timeoutMs: 20_000 },
  );
});
