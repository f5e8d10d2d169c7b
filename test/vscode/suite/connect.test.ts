// Connect reaches the machine: inside a real VS Code, a key is registered through the scripting
// interface, an instance is created, and Connect's terminal fallback opens an integrated
// terminal whose real ssh session runs a command in the simulated instance (a file appears in
// its scratch folder). Temporary SSH home; the simulator's SSH servers are real (ssh2).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import type { AccountTreeProvider } from '../../../src/account/vscode/accountTree';
import { join } from 'node:path';
import { connect } from 'node:net';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, sleep, uiCheckpoint } from './framework';
import { runningInstance, simControl } from './sim';
import { signedInWithSshHome, signOutAndDropSshHome } from './testKey';

import { sshGAll } from '../../unit/ssh/sshG';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

let home: string | undefined;

describe('connect', () => {
  afterEach(async () => {
    const { services } = await getExtensionApi();
    for (const t of vscode.window.terminals) if (t.name.startsWith('SSH ')) t.dispose();
    await signOutAndDropSshHome(services, home);
    home = undefined;
  });

  it(
    "registers a key (scripted), creates an instance, and Connect's terminal runs a command in it",
    async () => {
      const { services } = await getExtensionApi();
      const set = await signedInWithSshHome(services, 'gpu-rental-connect-it-');
      home = set.home;
      const { w } = set;
      const key = set.key!;
      const api = await services.api();
      const { id } = await runningInstance(services, 'connect proof', { image: 'sim/base:1' });
      // The instance was created after the key: it accepts it without an attach.
      assert.ok((await api.listInstanceSshKeys(id)).some((k) => k.id === key.id));

      answer('showInformationMessage', (msg: string) => (assert.match(msg, /no Remote-SSH extension is installed/), 'Open in Terminal'));
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string; alias?: string; args?: string[] };
      assert.equal(r.action, 'terminal');
      const entry = await w.findEntry(id);
      assert.ok(entry && r.alias === entry.alias);
      assert.equal(entry.identityFile, key.privatePath, 'the entry uses the registered key');
      // The test's HOME is not the one plain ssh reads: its config (which includes the entries) is named.
      assert.deepEqual(r.args, ['-F', w.userConfigPath, entry.alias]);
      const terminal = vscode.window.terminals.find((t) => t.name === `SSH ${entry.alias}`);
      assert.ok(terminal, 'the terminal opened');

      const scratch = await simControl().instanceHome(id);
      const proof = join(scratch, 'connect-proof.txt');
      for (let i = 0; i < 6 && !existsSync(proof); i++) {
        terminal.sendText(
          'echo "ran in $CONTAINER_ID" > connect-proof.txt && clear && echo "Connected: a shell on the simulated instance $CONTAINER_ID (in $PWD)"',
        );
        await waitFor(() => existsSync(proof), 5000, 'the command to run').catch(() => undefined);
      }
      assert.equal(readFileSync(proof, 'utf8'), `ran in ${id}\n`);
      terminal.show();
      // Notifications left by earlier tests do not belong in the README picture.
      await vscode.commands.executeCommand('notifications.clearAll');
      await sleep(500);
      assert.equal(await uiCheckpoint('connect-terminal'), 'ok');
      await api.destroyInstance(id);
    },
    { timeoutMs: 60_000 },
  );

  it(
    'a template\'s port forward in Connect\'s terminal raises no "port is available" popup (VS Code runs remotely here)',
    async () => {
      const { services } = await getExtensionApi();
      const attrs = vscode.workspace.getConfiguration('remote').get<Record<string, { onAutoForward?: string }>>('portsAttributes') ?? {};
      assert.equal(attrs['SendEnv=GPU_RENTAL_SSH_TERMINAL']?.onAutoForward, 'silent', `remote.portsAttributes: ${JSON.stringify(attrs)}`);
      const set = await signedInWithSshHome(services, 'gpu-rental-ports-it-');
      home = set.home;
      const { id } = await runningInstance(services, 'port popup', { image: 'sim/base:1' });
      const localPort = 20000 + (id % 20000);
      await services.globalState.update(SSH_OPTIONS_STATE_KEY, { [String(id)]: { localForwards: [{ localPort, remotePort: 8080 }] } });
      await vscode.commands.executeCommand('notifications.clearAll');
      answer('showInformationMessage', 'Open in Terminal');
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string };
      assert.equal(r.action, 'terminal');
      // The forward listens (ssh logged in); VS Code scans for new listening ports every few seconds.
      await waitFor(
        () =>
          new Promise<boolean>((res) => {
            const c = connect(localPort, '127.0.0.1', () => (c.destroy(), res(true)));
            c.on('error', () => res(false));
          }),
        20_000,
        `ssh to listen on ${localPort}`,
      );
      assert.equal(await uiCheckpoint('no-port-popup', 90_000), 'ok');
      await (await services.api()).destroyInstance(id);
    },
    { timeoutMs: 90_000 },
  );

  it(
    'without a key of this machine on the account, Connect asks once, says why, creates and attaches a key, and ssh gets in',
    async () => {
      const { services } = await getExtensionApi();
      const set = await signedInWithSshHome(services, 'gpu-rental-nokey-it-', { register: false });
      home = set.home;
      const { w } = set;
      const api = await services.api();
      // Created before the key exists: it accepts the new key only once it is attached.
      const { id } = await runningInstance(services, 'no key yet', { image: 'sim/base:1' });

      answer('showWarningMessage', (msg: string, opts: vscode.MessageOptions, ...items: string[]) => {
        assert.match(msg, /Permission denied \(publickey\)/);
        assert.equal(opts.modal, true);
        assert.deepEqual(items, ['Create a New Key Pair', 'Continue Without']);
        return 'Create a New Key Pair';
      });
      capture('setStatusBarMessage');
      answer('showInformationMessage', (msg: string) => (assert.match(msg, /no Remote-SSH extension is installed/), 'Open in Terminal'));
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string; alias?: string };
      assert.equal(r.action, 'terminal');
      const privatePath = join(home, '.ssh', 'gpu-rental_ed25519');
      assert.ok(existsSync(privatePath), 'the key pair was created');
      assert.equal((await w.findEntry(id))?.identityFile, privatePath);
      assert.ok((await api.listInstanceSshKeys(id)).length > 0, 'the new key was attached to the running instance');
      assert.ok(
        promptCalls.some((p) => p.kind === 'setStatusBarMessage' && /is now on your account and attached to running instance/.test(p.text)),
        'said in the status bar, not in a toast inside the flow',
      );
      const out = execFileSync('ssh', ['-F', w.configPath, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', r.alias!, 'echo $CONTAINER_ID'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
      });
      assert.equal(out.trim(), String(id));
      await api.destroyInstance(id);
    },
    { timeoutMs: 40_000 },
  );
  it(
    "Connect keeps a template's key over the key the check picked, also once the recorded template options are gone (ssh -G)",
    async () => {
      const { services } = await getExtensionApi();
      const set = await signedInWithSshHome(services, 'gpu-rental-tplkey-it-');
      home = set.home;
      const { w } = set;
      const picked = set.key!.privatePath; // registered and remembered: the key check picks it
      const templateKey = join(home, '.ssh', 'template_ed25519'); // the template's own key (not on the account)
      const api = await services.api();
      const { id } = await runningInstance(services, 'template key', { image: 'sim/base:1' });
      // What the create flow records for an instance of a template with ssh.identityFile.
      await services.globalState.update(SSH_OPTIONS_STATE_KEY, {
        [String(id)]: { identityFile: '~/.ssh/template_ed25519', localForwards: [{ localPort: 18888, remotePort: 8888 }] },
      });
      try {
        for (const recorded of [true, false]) {
          if (!recorded) await services.globalState.update(SSH_OPTIONS_STATE_KEY, undefined); // another profile, or the record lost
          answer('showInformationMessage', (msg: string) => (assert.match(msg, /no Remote-SSH extension is installed/), 'Open in Terminal'));
          const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string; alias?: string };
          assert.equal(r.action, 'terminal');
          const g = sshGAll(w.configPath, r.alias!);
          const why = recorded ? 'with the recorded options' : 'without them';
          assert.deepEqual(g.get('identityfile'), [templateKey], `${why}: the template's key, not ${picked}`);
          assert.deepEqual(g.get('identitiesonly'), ['yes'], why);
          assert.deepEqual(g.get('localforward'), ['18888 [localhost]:8888'], why);
        }
      } finally {
        await services.globalState.update(SSH_OPTIONS_STATE_KEY, undefined);
        await api.destroyInstance(id);
      }
    },
    { timeoutMs: 40_000 },
  );

  it(
    'the key commands: Account view node, attach, copy, remove (asks, then removes)',
    async () => {
      const { services } = await getExtensionApi();
      const set = await signedInWithSshHome(services, 'gpu-rental-keycmds-it-');
      home = set.home;
      const key = set.key!;
      const api = await services.api();

      // The Account view's SSH Keys node lists it, marked as having its private half here.
      const account = (await getExtensionApi()).ui.account as AccountTreeProvider;
      account.setVisible(true);
      account.refresh();
      const node = await waitFor(async () => (await account.getChildren()).find((r) => r.id === 'sshKeys'), 10_000, 'the SSH Keys node');
      const row = node.children?.find((r) => r.sshKey?.id === key.id);
      assert.ok(row, 'the registered key is listed');
      assert.equal(row.contextValue, 'sshKeyLocal');
      assert.match(row.description ?? '', /^ssh-ed25519 · SHA256:\S+ · added .+ · private key on this machine$/);

      // attach to an instance created before another key
      const { id } = await runningInstance(services, 'attach here', { image: 'sim/base:1' });
      const otherPath = join(home, '.ssh', 'other_ed25519');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'other', '-f', otherPath]);
      const attached = await vscode.commands.executeCommand<{ instanceId: number; fingerprint: string }>('gpuRental.attachSshKey', {
        instanceId: id,
        publicKeyPath: `${otherPath}.pub`,
      });
      assert.equal(attached?.instanceId, id);
      assert.ok((await api.listInstanceSshKeys(id)).some((k) => k.public_key.endsWith(' other')));

      // copy
      const copied = await vscode.commands.executeCommand<string>('gpuRental.copySshPublicKey', row);
      assert.equal(copied, (await api.listSshKeys()).find((k) => k.id === key.id)?.public_key);
      assert.equal(await vscode.env.clipboard.readText(), copied);

      // remove from the row: asks first; "no" keeps it
      answer(
        'showWarningMessage',
        (msg: string, opts: vscode.MessageOptions) => (assert.match(msg, /^Remove SSH key .*SHA256:/), assert.equal(opts.modal, true), undefined),
      );
      assert.equal(await vscode.commands.executeCommand('gpuRental.removeSshKey', row), undefined);
      assert.ok((await api.listSshKeys()).some((k) => k.id === key.id));
      answer('showWarningMessage', 'Remove');
      assert.deepEqual(await vscode.commands.executeCommand('gpuRental.removeSshKey', row), { removed: key.id });
      assert.equal(
        (await api.listSshKeys()).some((k) => k.id === key.id),
        false,
      );
      // scripted: { id, skipConfirmation }
      const again = await vscode.commands.executeCommand<{ id: number }>('gpuRental.addSshKey', { publicKeyPath: `${otherPath}.pub` });
      assert.deepEqual(await vscode.commands.executeCommand('gpuRental.removeSshKey', { id: again!.id, skipConfirmation: true }), { removed: again!.id });
      await api.destroyInstance(id);
    },
    { timeoutMs: 40_000 },
  );
});
