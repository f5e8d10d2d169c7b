// gpuRental.connect (a lazily loaded bundle): make sure the instance has a host entry, then open a Remote-SSH window
// (or, without Remote-SSH, an integrated terminal running ssh).
import * as vscode from 'vscode';
import type { Instance } from '../../api/types';
import type { Services } from '../../host/services';
import type { SshConfigWriter } from '../../ssh/sshConfigWriter';
// SshConfigError through host/ssh: the class the writer in dist/ssh.js throws, not a copy.
import { SshConfigError, createWriter, ensureInclude, sshOptionsFor } from '../../host/ssh';
import { instanceIdOf } from '../../model/instanceRef';
import { resolveInstance } from '../instances/target';
import { sshAddress } from '../../ssh/address';
import { checkSshTarget } from '../../ssh/sshValues';

/** Remote-SSH and the forks known to provide the `ssh-remote` authority. */
export const REMOTE_SSH_EXTENSIONS = ['ms-vscode-remote.remote-ssh', 'jeanp413.open-remote-ssh', 'anysphere.remote-ssh'];
const EMPTY_WINDOW_COMMANDS = ['opensshremotes.openEmptyWindow', 'openremotessh.openEmptyWindow'];

export const INSTALL_REMOTE_SSH = 'Install Remote - SSH';
export const OPEN_IN_TERMINAL = 'Open in Terminal';

/** For scripts and integration tests (Remote-SSH is not installed in the test host). */
export interface ConnectOptions {
  /** Treat Remote-SSH as installed. */
  assumeRemoteSsh?: boolean;
}

export type ConnectResult =
  | { action: 'openFolder'; alias: string; uri: string }
  | { action: 'openEmptyWindow'; alias: string; command: string }
  | { action: 'terminal'; alias?: string; args: string[] }
  | { action: 'install' }
  | { action: 'cancelled' }
  | { action: 'failed'; message: string };

function remoteSshInstalled(): boolean {
  return REMOTE_SSH_EXTENSIONS.some((id) => vscode.extensions.getExtension(id) !== undefined);
}

function openTerminal(alias: string | undefined, args: string[]): ConnectResult {
  const t = vscode.window.createTerminal({ name: `SSH ${alias ?? args[args.length - 1] ?? ''}`.trim(), shellPath: 'ssh', shellArgs: args });
  t.show();
  return { action: 'terminal', ...(alias ? { alias } : {}), args };
}

function fail(message: string): ConnectResult {
  void vscode.window.showErrorMessage(message);
  return { action: 'failed', message };
}

/** gpuRental.connect(instance?, options?): a row, an id or `{ id }`; without one, the running instances. */
export async function connect(services: Services, target?: unknown, o: ConnectOptions = {}): Promise<ConnectResult> {
  let inst: Instance | undefined;
  const id = instanceIdOf(target);
  if (id === undefined) {
    if (target !== undefined && target !== null) {
      return fail('Connect needs an instance id (a number) or an instance row. Pick the instance in the GPU Rental view and try again.');
    }
    inst = await resolveInstance(services, undefined, (i) => i.state === 'running', {
      verb: 'Connect with Remote-SSH',
      none: 'No instance is running, so there is nothing to connect to. Start or create an instance in the GPU Rental view, then connect again.',
      takeOnly: true,
    });
    if (!inst) return { action: 'cancelled' };
  } else {
    inst = services.instances.get(id);
    if (!inst) {
      await services.instances.refresh().catch(() => undefined);
      inst = services.instances.get(id);
    }
    if (!inst) return fail(`Instance ${id} is not in your instance list (it may have been destroyed). Refresh the GPU Rental view and pick a running instance.`);
  }
  const addr = sshAddress(inst);
  if (inst.state !== 'running' || !addr) {
    return fail(`Instance ${inst.id} is ${inst.state}, and Connect works only on running instances. Start it (or wait until it is running), then connect again.`);
  }

  if (!services.settings().ssh.manageConfig) {
    // Without a managed entry there is no alias for Remote-SSH to resolve: plain ssh only.
    // The terminal runs ssh with these arguments: checked like the SSH writer checks them.
    const target = checkSshTarget(inst.id, addr.host, addr.port, sshOptionsFor(services, inst.id).user?.trim() || 'root');
    if (!target.ok) return fail(target.problem);
    const pick = await vscode.window.showWarningMessage(
      'GPU Rental does not manage SSH config entries (gpuRental.ssh.manageConfig is off), so it cannot open a Remote-SSH window. Open an SSH session in the terminal instead, or turn the setting on.',
      OPEN_IN_TERMINAL,
    );
    return pick === OPEN_IN_TERMINAL ? openTerminal(undefined, ['-p', String(target.port), `${target.user}@${target.host}`]) : { action: 'cancelled' };
  }

  const writer = createWriter(services);
  const opts = sshOptionsFor(services, inst.id);
  let alias: string;
  try {
    alias = await ensureEntry(writer, inst, opts);
  } catch (e) {
    services.log.warn(`ssh: connect ${inst.id}: ${(e as Error).message}`);
    return fail(e instanceof SshConfigError ? e.message : `Could not write the SSH entry for instance ${inst.id} (${(e as Error).message}). Check that ~/.ssh is writable, or use Copy SSH Command.`);
  }
  const include = await ensureInclude(services, writer, false, true);
  const terminalArgs = include.state === 'present' ? [alias] : ['-F', writer.configPath, alias];

  if (!o.assumeRemoteSsh && !remoteSshInstalled()) {
    const pick = await vscode.window.showInformationMessage(
      `Connect opens instance ${inst.id} in a Remote-SSH window, but the Remote - SSH extension is not installed. Install it, or open an SSH session in the terminal instead.`,
      INSTALL_REMOTE_SSH,
      OPEN_IN_TERMINAL,
    );
    if (pick === OPEN_IN_TERMINAL) return openTerminal(alias, terminalArgs);
    if (pick !== INSTALL_REMOTE_SSH) return { action: 'cancelled' };
    await vscode.commands.executeCommand('workbench.extensions.installExtension', REMOTE_SSH_EXTENSIONS[0]);
    void vscode.window.showInformationMessage('Remote - SSH is being installed. When it is ready, run "GPU Rental: Connect" again.');
    return { action: 'install' };
  }
  if (include.state !== 'present') {
    const pick = await vscode.window.showWarningMessage(
      `Remote-SSH cannot find host ${alias} until your SSH config includes GPU Rental's hosts file. Run "GPU Rental: Set Up Remote-SSH Config" to add it, or open an SSH session in the terminal now.`,
      OPEN_IN_TERMINAL,
    );
    return pick === OPEN_IN_TERMINAL ? openTerminal(alias, terminalArgs) : { action: 'cancelled' };
  }

  const folder = opts.remoteFolder?.trim();
  if (folder) {
    const uri = vscode.Uri.from({ scheme: 'vscode-remote', authority: `ssh-remote+${alias}`, path: folder.startsWith('/') ? folder : `/${folder}` });
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    return { action: 'openFolder', alias, uri: uri.toString(true) };
  }
  const available = new Set(await vscode.commands.getCommands(true));
  const command = EMPTY_WINDOW_COMMANDS.find((c) => available.has(c)) ?? EMPTY_WINDOW_COMMANDS[0]!;
  await vscode.commands.executeCommand(command, { host: alias });
  return { action: 'openEmptyWindow', alias, command };
}

/** Writes the entry when it is missing or stale; returns the alias. */
export async function ensureEntry(writer: SshConfigWriter, inst: Instance, opts: Parameters<SshConfigWriter['writeEntry']>[1]): Promise<string> {
  const e = await writer.findEntry(inst.id);
  const addr = sshAddress(inst);
  if (e && addr && e.hostName === addr.host && e.port === addr.port) return e.alias;
  return writer.writeEntry(inst, opts);
}
