// The Getting Started walkthrough in a real VS Code against the simulator: contributed, opened
// once after install, and its steps complete on what really happened (a key on the account, a
// search that returned, a new instance running), not when a step's button merely opened a command.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { rmSync } from 'node:fs';
import { describe, it, waitFor, answer, capture, promptCalls, uiCheckpoint, EXTENSION_ID } from './framework';
import { simControl } from './sim';
import { signIn, ui, signOutAfterEach } from './session';
import { registerTestKey, tempSshHome } from './testKey';
import { PICKED_SSH_KEY_STATE_KEY } from '../../../src/core/stateKeys';

describe('walkthrough', () => {
  signOutAfterEach('workbench.action.closeAllEditors');

  it(
    'the walkthrough is contributed, opened once after install, and its steps complete',
    async () => {
      const { services } = await ui();
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const walk = (
        ext.packageJSON.contributes.walkthroughs as Array<{ id: string; steps: Array<{ id: string; description: string; completionEvents: string[] }> }>
      ).find((w) => w.id === 'gettingStarted');
      assert.ok(walk, 'no walkthrough contributed');
      // Marked once activate() has returned (the next turn): wait for it, as this test may be the first to activate.
      await waitFor(
        () => services.globalState.get('gpuRental.walkthroughShown') === true || undefined,
        5_000,
        'the walkthrough to be marked as opened after install',
      );
      const registered = new Set(await vscode.commands.getCommands(true));
      const missing: string[] = [];
      for (const s of walk.steps) {
        for (const m of s.description.matchAll(/\(command:([\w.]+)\)/g)) if (!registered.has(m[1]!)) missing.push(`${s.id}: ${m[1]}`);
      }
      assert.deepEqual(missing, [], 'every step button runs a registered command');

      // Runs right after the smoke tests (index.ts), before any test registers a key, searches or
      // creates: VS Code keeps completed steps, and counts each completion event once per session.
      const { home, w } = tempSshHome('gpu-rental-walk-it-');
      try {
        await signIn();
        capture('showInformationMessage', 'showErrorMessage', 'showWarningMessage', 'showInputBox', 'showQuickPick');
        await vscode.commands.executeCommand('notifications.clearAll');
        await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#gettingStarted`, false);
        // The runner clicks Search Offers, Add SSH Key and Create Instance and presses Escape: nothing is done, nothing ticks.
        assert.equal(await uiCheckpoint('walkthrough-opened-only'), 'ok');
        assert.ok(
          promptCalls.some((p) => p.kind === 'showInputBox'),
          'the Search Offers (Query) button ran the command',
        );

        // The real outcomes: a key on the account, a search that returned, an instance that runs.
        await registerTestKey(home);
        assert.ok((await vscode.commands.executeCommand<unknown[]>('gpuRental.searchOffersQuery', 'num_gpus>=1 gpu_name=RTX_4090 -o dph'))?.length);
        const offer = (
          await (await services.api()).searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2, type: 'on-demand', order: [['dph_total', 'asc']] })
        )[0]!;
        const before = new Set(services.instances.instances.map((i) => i.id));
        const pending = vscode.commands.executeCommand<{ outcome: string; instance?: { id: number } }>('gpuRental.createFromTemplate', {
          template: '.gpu/pytorch.json',
          offerId: offer.id,
          confirm: false,
          pollIntervalMs: 250,
        });
        let ended: unknown;
        Promise.resolve(pending).then(
          (r) => (ended = r),
          () => (ended = 'rejected'),
        );
        const row = await waitFor(
          () =>
            services.instances.instances.find((i) => !before.has(i.id)) ??
            (ended
              ? assert.fail(`the creation ended: ${JSON.stringify(ended).slice(0, 300)}; prompts: ${JSON.stringify(promptCalls).slice(0, 600)}`)
              : undefined),
          20_000,
          'the new row',
        );
        await simControl().advance(120);
        assert.equal((await pending)?.outcome, 'running');
        // Connect completes when it opened a window or a terminal (here: the terminal, no Remote-SSH
        // installed); Stop when used: the runner clicks it; then all six are ticked.
        answer('showInformationMessage', 'Open in Terminal');
        assert.equal(((await vscode.commands.executeCommand('gpuRental.connect', row.id)) as { action: string }).action, 'terminal');
        assert.equal(await uiCheckpoint('walkthrough'), 'ok');
        await (await services.api()).destroyInstance(row.id);
        void w;
      } finally {
        await services.globalState.update(PICKED_SSH_KEY_STATE_KEY, undefined);
        delete process.env.GPU_RENTAL_SSH_HOME;
        rmSync(home, { recursive: true, force: true });
      }
    },
    { timeoutMs: 150_000 },
  );
});
