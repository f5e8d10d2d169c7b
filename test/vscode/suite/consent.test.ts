// Consent for other extensions: with gpuRental.scripting.allowUnattended off (the default; the
// runner turns it on for the suites that script unattended calls), an argument that skips a
// confirmation of spending or destroying is not honoured: the command asks as for a click.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, getExtensionApi, waitFor, answer, capture, promptCalls } from './framework';
import { simControl } from './sim';
import { signInToSeeded, signOutAfterEach } from './session';

async function allowUnattended(on: boolean): Promise<void> {
  const { services } = await getExtensionApi();
  await vscode.workspace.getConfiguration('gpuRental').update('scripting.allowUnattended', on, vscode.ConfigurationTarget.Global);
  await waitFor(() => services.settings().scripting.allowUnattended === on, 5000, `allowUnattended ${on} read`);
}

describe('consent for other extensions', () => {
  signOutAfterEach(() => allowUnattended(true));

  it(
    "allowUnattended off: destroy with skipConfirmation asks (Enter cancels) and sends nothing; a caller's key file is asked about",
    async () => {
      const { services } = await getExtensionApi();
      await signInToSeeded(1);
      const inst = services.instances.instances[0]!;
      await allowUnattended(false);
      answer('showQuickPick', undefined); // Escape on the destroy confirmation
      capture('showInformationMessage', 'showErrorMessage');
      assert.equal(await vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true }), false);
      assert.ok(
        promptCalls.some((p) => p.kind === 'showQuickPick' && /^Destroy "/.test(p.text)),
        `the confirmation was shown: ${JSON.stringify(promptCalls)}`,
      );
      assert.equal((await simControl().requests()).filter((r) => r.method === 'DELETE').length, 0, 'nothing destroyed');

      // A key file named by the caller: the modal names it; Escape registers nothing.
      const keysBefore = (await (await services.api()).listSshKeys()).length;
      answer('showWarningMessage', undefined);
      const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-consent-'));
      try {
        execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'caller', '-f', join(dir, 'caller')]);
        assert.equal(await vscode.commands.executeCommand('gpuRental.addSshKey', { publicKeyPath: join(dir, 'caller.pub') }), undefined);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      assert.ok(
        promptCalls.some((p) => p.kind === 'showWarningMessage' && /^Add this SSH key to your account/.test(p.text)),
        JSON.stringify(promptCalls),
      );
      assert.equal((await (await services.api()).listSshKeys()).length, keysBefore, 'no key registered');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'allowUnattended on (user settings): the same call destroys without a question',
    async () => {
      const { services } = await getExtensionApi();
      await signInToSeeded(1);
      const inst = services.instances.instances[0]!;
      await allowUnattended(true);
      capture('showInformationMessage');
      assert.equal(await vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true }), true);
      assert.equal(promptCalls.filter((p) => p.kind === 'showQuickPick').length, 0);
    },
    { timeoutMs: 30_000 },
  );
});
