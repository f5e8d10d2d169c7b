// Two-factor authentication in a real VS Code against the simulator. The commands take
// scripted answers (see src/account/tfaScript.ts); TOTP codes are computed here from the
// secret the flow hands to the script, e-mail codes are read from the simulator's outbox.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { totp } from '../../../src/sim/totp';
import type { TfaScript } from '../../../src/account/tfaScript';
import type { FlowResult } from '../../../src/account/tfaPorts';
import { describe, it, afterEach, getExtensionApi, simUrl, waitFor, capture, promptCalls, uiCheckpoint } from './framework';
import { simControl } from './sim';

async function signIn(): Promise<void> {
  await vscode.workspace.getConfiguration('gpuRental').update('apiBaseUrl', simUrl(), vscode.ConfigurationTarget.Global);
  const ok = await vscode.commands.executeCommand<boolean>('gpuRental.setApiKey', 'sim-api-key');
  assert.equal(ok, true, 'the simulator key was not accepted');
}

const emailCode = async (): Promise<string> => (await simControl().lastCode('email')).code;
const totpNow = (secret: string) => async (): Promise<string> => totp(secret, await simControl().now());

interface Seen {
  infos: string[];
  errors: string[];
  codes: string[][];
}
function quiet(seen: Seen, script: TfaScript): TfaScript {
  return {
    onInfo: (m) => seen.infos.push(m),
    onErrorShown: (i) => seen.errors.push(i.code ?? i.message),
    onBackupCodes: (c) => seen.codes.push([...c]),
    ...script,
  };
}
const newSeen = (): Seen => ({ infos: [], errors: [], codes: [] });

async function run<T>(command: string, script: TfaScript, seen = newSeen()): Promise<FlowResult<T>> {
  const r = await vscode.commands.executeCommand<FlowResult<T>>(command, quiet(seen, script));
  assert.ok(r, `${command} returned nothing`);
  return r;
}

/** Enables TOTP through the command; returns the secret (kept in the test only) and method id. */
async function enableTotp(seen = newSeen()): Promise<{ secret: string; id: number }> {
  let secret = '';
  const r = await run('gpuRental.tfa.addTotp', { label: 'VS Code test', code: [emailCode, async (s) => ((secret = s!), totpNow(s!)())] }, seen);
  assert.ok(r.ok, `enable TOTP failed: ${seen.errors.join(', ')}`);
  const { services } = await getExtensionApi();
  const st = await (await services.api()).tfaStatus();
  return { secret, id: st.methods[0]!.id };
}

describe('2FA', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('gpuRental.tfa.signOut', { onInfo: () => undefined });
    await vscode.commands.executeCommand('gpuRental.clearApiKey');
    await simControl().reset();
  });

  it(
    'enables an authenticator app end to end and shows 10 backup codes once',
    async () => {
      await signIn();
      const seen = newSeen();
      await enableTotp(seen);
      assert.equal(seen.codes.length, 1);
      assert.equal(seen.codes[0]!.length, 10);
      const { services } = await getExtensionApi();
      const st = await (await services.api()).tfaStatus();
      assert.equal(st.tfa_enabled, true);
      assert.equal(st.methods[0]!.label, 'VS Code test');
      assert.equal(st.backup_codes_remaining, 10);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'the Account view says 2FA is on while the backup codes are still open',
    async () => {
      await signIn();
      const account = (await getExtensionApi()).ui.account as unknown as vscode.TreeDataProvider<{ label: string }>;
      const labels = async () => ((await account.getChildren()) ?? []).map((r) => r.label);
      await vscode.commands.executeCommand('gpuRental.account.focus');
      await waitFor(async () => (await labels()).includes('Two-factor authentication: off'), 10_000, 'the Account view before');
      let shownWhileOpen: string[] = [];
      const seen = newSeen();
      const script: TfaScript = {
        label: 'View check',
        code: [emailCode, async (s) => totpNow(s!)()],
        // The codes view waits for the user: the view must be current before it opens.
        onBackupCodes: async () => {
          shownWhileOpen = await waitFor(
            async () => {
              const l = await labels();
              return l.includes('Two-factor authentication: on') ? l : undefined;
            },
            8000,
            'the Account view to say 2FA is on',
          ).catch(async () => labels());
        },
      };
      const r = await run('gpuRental.tfa.addTotp', script, seen);
      assert.ok(r.ok, `enable TOTP failed: ${seen.errors.join(', ')}`);
      assert.ok(shownWhileOpen.includes('Two-factor authentication: on'), `while the codes were open the view showed: ${shownWhileOpen.join(' | ')}`);
      assert.ok(!shownWhileOpen.includes('Adding a method: needs authorization'), 'the authorization row is current too');
    },
    { timeoutMs: 40_000 },
  );

  it(
    'regenerates backup codes verified by the authenticator app',
    async () => {
      await signIn();
      const first = newSeen();
      const { secret, id } = await enableTotp(first);
      const seen = newSeen();
      const r = await run<number>('gpuRental.tfa.regenerateBackupCodes', { verify: id, code: totpNow(secret) }, seen);
      assert.deepEqual(r, { ok: true, value: 10 });
      assert.equal(seen.codes[0]!.length, 10);
      assert.notDeepEqual(seen.codes[0], first.codes[0]);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'signs in with 2FA: the session key becomes the bearer; sign out returns to the API key',
    async () => {
      await signIn();
      const { secret, id } = await enableTotp();
      const { services } = await getExtensionApi();
      const r = await run('gpuRental.tfa.signIn', { verify: id, code: totpNow(secret) });
      assert.ok(r.ok);
      await waitFor(() => services.connection().session, 5000, '2FA session in use');
      const me = await (await services.api()).currentUser();
      assert.ok(me.email);
      await run('gpuRental.tfa.signOut', {});
      await waitFor(() => !services.connection().session, 5000, 'session dropped');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'an expired 2FA session falls back to the API key once, with a message',
    async () => {
      await signIn();
      const { secret, id } = await enableTotp();
      const { services } = await getExtensionApi();
      assert.ok((await run('gpuRental.tfa.signIn', { verify: id, code: totpNow(secret) })).ok);
      await waitFor(() => services.connection().session, 5000, '2FA session in use');
      capture('showWarningMessage');
      await simControl().fault({ kind: 'expire_session' });
      const me = await (await services.api()).currentUser();
      assert.ok(me.email, 'the request went through with the API key');
      await waitFor(() => !services.connection().session, 5000, 'session dropped');
      assert.ok(
        promptCalls.some((p) => p.kind === 'showWarningMessage' && /2FA session has expired/.test(p.text)),
        'no message about the expired session',
      );
      assert.equal(await services.secrets.get('sessionKey'), undefined);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'removes the last method after the warning: 2FA off, backup codes gone',
    async () => {
      await signIn();
      const { secret, id } = await enableTotp();
      let warning = '';
      const r = await run<{ disabled: boolean }>('gpuRental.tfa.removeMethod', {
        method: id,
        verify: id,
        code: totpNow(secret),
        confirm: true,
        onConfirm: (m) => (warning = m),
      });
      assert.ok(r.ok && r.value.disabled);
      assert.match(warning, /turns two-factor authentication off/);
      const { services } = await getExtensionApi();
      const st = await (await services.api()).tfaStatus();
      assert.equal(st.tfa_enabled, false);
      assert.equal(st.backup_codes_remaining, 0);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'shows the QR webview (screenshot for the README)',
    async () => {
      await signIn();
      capture('showInformationMessage');
      // Only the authorization code is scripted, so the setup opens the real webview.
      await vscode.commands.executeCommand('notifications.clearAll');
      const pending = vscode.commands.executeCommand('gpuRental.tfa.addTotp', { onInfo: () => undefined, code: [emailCode] });
      await uiCheckpoint('tfa-qr');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await pending;
    },
    { timeoutMs: 90_000 },
  );
});
