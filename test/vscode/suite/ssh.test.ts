// Remote-SSH connect inside a real VS Code: the right remote command and URI, the terminal
// fallback when Remote-SSH is missing, and the entry following a destroy. The writer is
// pointed at a temporary HOME (GPU_RENTAL_SSH_HOME) so the machine's ~/.ssh is never touched.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { describe, it, afterEach, getExtensionApi, waitFor, answer, capture, promptCalls, sleep, uiCheckpoint } from './framework';
import { runningInstance } from './sim';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';

import type { Services } from '../../../src/core/vscode/services';
import { signedInWithSshHome, signOutAndDropSshHome } from './testKey';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

const REMOTE_COMMANDS = new Set([
  'vscode.openFolder',
  'opensshremotes.openEmptyWindow',
  'openremotessh.openEmptyWindow',
  'workbench.extensions.installExtension',
]);

interface Call {
  command: string;
  args: unknown[];
}

/** Records the remote commands instead of running them (Remote-SSH is not installed here). */
function stubRemoteCommands(): { calls: Call[]; restore(): void } {
  const calls: Call[] = [];
  const cmds = vscode.commands as unknown as { executeCommand: (c: string, ...a: unknown[]) => Thenable<unknown> };
  const original = cmds.executeCommand;
  cmds.executeCommand = (command: string, ...args: unknown[]) => {
    if (REMOTE_COMMANDS.has(command)) {
      calls.push({ command, args });
      return Promise.resolve(undefined);
    }
    return original.call(vscode.commands, command, ...args);
  };
  return { calls, restore: () => (cmds.executeCommand = original) };
}

let home: string | undefined;
let restoreCommands: (() => void) | undefined;

/**
 * Signed in with a temporary HOME (whose user config is `userConfig`, or by default includes ours)
 * and a key of it on the account (Connect checks for one), a running instance, remote commands stubbed.
 */
async function ready(userConfig?: string): Promise<{ services: Services; w: SshConfigWriter; id: number; calls: Call[] }> {
  const { services } = await getExtensionApi();
  const set = await signedInWithSshHome(services, 'gpu-rental-ssh-it-', { userConfig });
  home = set.home;
  const { id } = await runningInstance(services, 'ssh it');
  const stub = stubRemoteCommands();
  restoreCommands = stub.restore;
  return { services, w: set.w, id, calls: stub.calls };
}

describe('ssh', () => {
  afterEach(async () => {
    restoreCommands?.();
    restoreCommands = undefined;
    const { services } = await getExtensionApi();
    await services.globalState.update(SSH_OPTIONS_STATE_KEY, undefined);
    await services.globalState.update('gpuRental.ssh.includeDeclined', undefined);
    for (const t of vscode.window.terminals) if (t.name.startsWith('SSH ')) t.dispose();
    await signOutAndDropSshHome(services, home);
    home = undefined;
  });

  it(
    'connect writes the entry, asks once for the Include line and opens an empty Remote-SSH window',
    async () => {
      const { services, w, id, calls } = await ready('Host *\n  ServerAliveInterval 60\n');
      answer('showInformationMessage', (msg: string, opts: vscode.MessageOptions | undefined) => {
        assert.match(msg, /Add one Include line/);
        // Connect waits for this answer: a notification would hide itself and Connect would seem dead.
        assert.equal(opts?.modal, true, 'the Include question of Connect is modal');
        return 'Add Include Line';
      });
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id, { assumeRemoteSsh: true })) as { action: string; alias?: string };
      assert.equal(r.action, 'openEmptyWindow');
      const inst = services.instances.get(id)!;
      const entry = await w.findEntry(id);
      assert.ok(entry, 'entry written');
      assert.equal(entry.alias, r.alias);
      assert.equal(entry.hostName, inst.ssh_host);
      assert.equal(entry.port, inst.ssh_port);
      assert.deepEqual(calls, [{ command: 'opensshremotes.openEmptyWindow', args: [{ host: entry.alias }] }]);
      const user = readFileSync(w.userConfigPath, 'utf8');
      assert.ok(user.endsWith('\n\nHost *\n  ServerAliveInterval 60\n') && user.includes(w.includeLine()));
    },
    { timeoutMs: 30_000 },
  );

  it(
    'connect on a config that starts with a byte-order mark (OpenSSH refuses it) offers to remove just those 3 bytes',
    async () => {
      const { w, id, calls } = await ready();
      const included = readFileSync(w.userConfigPath);
      writeFileSync(w.userConfigPath, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), included]));
      answer('showInformationMessage', (msg: string, opts: vscode.MessageOptions | undefined) => {
        assert.match(msg, /starts with a byte-order mark \(BOM\), which OpenSSH refuses/);
        assert.equal(opts?.modal, true);
        return 'Remove Byte-Order Mark';
      });
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id, { assumeRemoteSsh: true })) as { action: string; alias?: string };
      assert.equal(r.action, 'openEmptyWindow');
      assert.equal(calls.length, 1);
      assert.deepEqual(readFileSync(w.userConfigPath), included, 'the file without its BOM, nothing else changed');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'connect opens the template folder with vscode-remote://ssh-remote+<alias>/<folder>',
    async () => {
      const { services, w, id, calls } = await ready();
      await services.globalState.update(SSH_OPTIONS_STATE_KEY, { [String(id)]: { remoteFolder: '/workspace/project', user: 'root' } });
      await vscode.commands.executeCommand('gpuRental.connect', { id: `instance:${id}` }, { assumeRemoteSsh: true });
      const alias = (await w.findEntry(id))?.alias;
      assert.ok(alias);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.command, 'vscode.openFolder');
      const uri = calls[0]!.args[0] as vscode.Uri;
      assert.ok(uri instanceof vscode.Uri);
      assert.equal(uri.toString(true), `vscode-remote://ssh-remote+${alias}/workspace/project`);
      assert.deepEqual([uri.scheme, uri.authority, uri.path], ['vscode-remote', `ssh-remote+${alias}`, '/workspace/project']);
      assert.deepEqual(calls[0]!.args[1], { forceNewWindow: true });
    },
    { timeoutMs: 30_000 },
  );

  it(
    'without Remote-SSH it offers the extension this host can install, or ssh in a terminal',
    async () => {
      const { w, id, calls } = await ready();
      // code-server installs from Open VSX, where Microsoft's Remote - SSH does not exist.
      answer('showInformationMessage', (msg: string, opts: vscode.MessageOptions, ...items: string[]) => {
        assert.match(msg, /no Remote-SSH extension is installed.*Open Remote - SSH \(jeanp413\.open-remote-ssh\)/);
        assert.equal(opts.modal, true, 'Connect waits for it: a modal');
        assert.deepEqual(items, ['Install Open Remote - SSH', 'Open in Terminal']);
        return 'Open in Terminal';
      });
      const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string; args?: string[] };
      const alias = (await w.findEntry(id))?.alias;
      assert.equal(r.action, 'terminal');
      // The test's HOME is not the one plain ssh reads, so its config is named (a user's own ~/.ssh/config is not).
      assert.deepEqual(r.args, ['-F', w.userConfigPath, alias]);
      assert.ok(
        vscode.window.terminals.some((t) => t.name === `SSH ${alias}`),
        'terminal opened',
      );
      assert.deepEqual(calls, []);

      answer('showInformationMessage', 'Install Open Remote - SSH');
      capture('setStatusBarMessage');
      const r2 = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string };
      assert.equal(r2.action, 'install');
      // The Extensions view shows the installation: what to do next is a status bar line, not a toast.
      assert.ok(
        promptCalls.some((p) => p.kind === 'setStatusBarMessage' && /Connect with Remote-SSH" again/.test(p.text)),
        JSON.stringify(promptCalls),
      );
      assert.deepEqual(calls, [{ command: 'workbench.extensions.installExtension', args: ['jeanp413.open-remote-ssh'] }]);
    },
    { timeoutMs: 30_000 },
  );

  it(
    'an install that fails (no marketplace) is said plainly and offers the terminal, never an unhandled error',
    async () => {
      const { w, id } = await ready();
      const cmds = vscode.commands as unknown as { executeCommand: (c: string, ...a: unknown[]) => Thenable<unknown> };
      const inner = cmds.executeCommand;
      cmds.executeCommand = (command: string, ...args: unknown[]) =>
        command === 'workbench.extensions.installExtension'
          ? Promise.reject(new Error('getaddrinfo ENOTFOUND open-vsx.org'))
          : inner.call(vscode.commands, command, ...args);
      try {
        answer('showInformationMessage', 'Install Open Remote - SSH');
        answer('showWarningMessage', (msg: string, opts: vscode.MessageOptions, ...items: string[]) => {
          assert.equal(opts.modal, true);
          assert.match(msg, /could not be installed from Open VSX: this VS Code has no extension marketplace or cannot reach it \(getaddrinfo ENOTFOUND/);
          assert.deepEqual(items, ['Open in Terminal']);
          return 'Open in Terminal';
        });
        const r = (await vscode.commands.executeCommand('gpuRental.connect', id)) as { action: string; args?: string[] };
        assert.equal(r.action, 'terminal');
        assert.deepEqual(r.args, ['-F', w.userConfigPath, (await w.findEntry(id))?.alias]);
      } finally {
        cmds.executeCommand = inner;
      }
    },
    { timeoutMs: 30_000 },
  );

  it(
    'a failed ssh keeps its terminal open with the cause and what to do (screenshot)',
    async () => {
      const { services, w, id } = await ready();
      // The simulated instance has a real SSH server; with the test's key detached from it, ssh
      // fails there with "Permission denied (publickey)".
      const api = await services.api();
      for (const k of await api.listInstanceSshKeys(id)) await api.detachSshKey(id, k.id);
      const closed: vscode.Terminal[] = [];
      const sub = vscode.window.onDidCloseTerminal((t) => closed.push(t));
      try {
        const r = (await vscode.commands.executeCommand('gpuRental.openTerminal', id)) as { action: string; args?: string[]; alias?: string };
        const alias = (await w.findEntry(id))?.alias;
        assert.equal(r.action, 'terminal');
        assert.deepEqual(r.args, ['-F', w.userConfigPath, alias], 'the user config (which includes ours)');
        const t = await waitFor(() => vscode.window.terminals.find((x) => x.name === `SSH ${alias}`), 5000, 'the terminal');
        await sleep(3000);
        assert.equal(t.exitStatus, undefined, 'the terminal is still open after ssh failed');
        assert.deepEqual(
          closed.map((x) => x.name),
          [],
        );
        assert.equal(services.instances.get(id)?.state, 'running');
        t.show();
        // The runner reads the terminal's text on screen and keeps the picture.
        await uiCheckpoint('ssh-terminal-failure');
      } finally {
        sub.dispose();
      }
    },
    { timeoutMs: 60_000 },
  );

  it(
    'Connect and Open Terminal refuse an instance that is not running and say why',
    async () => {
      const { services, id, calls } = await ready();
      await (await services.api()).setInstanceState(id, 'stopped');
      await waitFor(
        async () => {
          await services.instances.refresh();
          return services.instances.get(id)?.state === 'stopped';
        },
        8000,
        'the row to show stopped',
      );
      capture('showErrorMessage');
      for (const command of ['gpuRental.connect', 'gpuRental.openTerminal']) {
        const r = (await vscode.commands.executeCommand(command, id)) as { action: string; message?: string };
        assert.equal(r.action, 'failed', command);
        assert.match(r.message ?? '', new RegExp(`^Instance ${id} is stopped, and Connect works only on running instances`), command);
      }
      assert.equal(promptCalls.filter((p) => p.kind === 'showErrorMessage').length, 2, 'each says it');
      assert.deepEqual(calls, []);
      assert.ok(!vscode.window.terminals.some((t) => t.name.startsWith('SSH ')), 'no terminal opened');
    },
    { timeoutMs: 30_000 },
  );

  it(
    'destroying the instance removes its entry',
    async () => {
      const { services, w, id } = await ready();
      await vscode.commands.executeCommand('gpuRental.connect', id, { assumeRemoteSsh: true });
      const entry = await w.findEntry(id);
      assert.ok(entry);
      const other = '[other.example]:2222 ssh-ed25519 AAAAother\n';
      writeFileSync(w.knownHostsPath, `[${entry.hostName}]:${entry.port} ssh-ed25519 AAAAinstance\n${other}`);
      await (await services.api()).destroyInstance(id);
      // The next polls no longer list it: one read without it is not proof it is gone, two in a row are.
      await waitFor(
        async () => {
          await services.instances.refresh();
          await new Promise((r) => setTimeout(r, 1300)); // past the entry sync's 1 s debounce
          return !(await w.findEntry(id));
        },
        12_000,
        'the entry to be removed',
      );
      assert.ok(existsSync(w.configPath));
      assert.equal(readFileSync(w.knownHostsPath, 'utf8'), other);
    },
    { timeoutMs: 30_000 },
  );
});
