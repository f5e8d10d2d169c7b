// Connect (gpuRental.connect, src/ssh/vscode/commands/connect.ts): make sure the instance has a host entry, then open a Remote-SSH window
// (or, without Remote-SSH, an integrated terminal running ssh). gpuRental.openTerminal: that terminal directly.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { tellDone } from '../../core/vscode/statusMessage';
import { CommandFailure, failedWith } from '../../core/vscode/commandFailure';
import type { SshConfigWriter } from '../sshConfigWriter';
// SshConfigError through sshHost.ts: the class the writer in dist/sshHost.js throws, not a copy.
import { SshConfigError, createWriter, ensureInclude, recordedSshOptions, sshHome, sshOptionsFor, templateKeyFor } from './sshHost';
import { instanceIdOf } from '../../core/instanceRef';
import { resolveInstance } from '../../core/vscode/instanceTarget';
import { sshAddress } from '../address';
import { checkSshTarget, sshCommandLine, sshConfigCommandLine } from '../sshValues';
import { expandHome } from '../keys';
import { PICKED_SSH_KEY_STATE_KEY } from '../../core/stateKeys';
import { REMOTE_SSH_EXTENSIONS, remoteSshExtensionFor, type RemoteSshExtension } from '../remoteSsh';
import { sshArgsForEntry } from '../explainingTerminal';
import { openSshTerminal } from './openSshTerminal';

const EMPTY_WINDOW_COMMANDS = ['opensshremotes.openEmptyWindow', 'openremotessh.openEmptyWindow'];

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
  | { action: 'install'; extension: string }
  | { action: 'cancelled' }
  | { action: 'failed'; message: string };

function remoteSshInstalled(): boolean {
  return REMOTE_SSH_EXTENSIONS.some((id) => vscode.extensions.getExtension(id) !== undefined);
}

/** The Remote-SSH extension this VS Code's marketplace has. */
export function installableRemoteSsh(): RemoteSshExtension {
  return remoteSshExtensionFor({ appName: vscode.env.appName, uriScheme: vscode.env.uriScheme });
}

function openTerminal(alias: string | undefined, args: string[]): ConnectResult {
  openSshTerminal({ name: `SSH ${alias ?? args[args.length - 1] ?? ''}`.trim(), args });
  return { action: 'terminal', ...(alias ? { alias } : {}), args };
}

/** A failed Connect: the result for scripts, marked for the command's reporter (the one notice). */
function fail(message: string): ConnectResult {
  return failedWith({ action: 'failed', message }, new CommandFailure(message));
}

/** Installs Remote-SSH from this host's marketplace; says plainly when there is none (or no network) and offers the terminal. */
/** Connect cannot open Remote-SSH: a modal (Connect waits for it) offering ssh in a terminal. True: open it. */
async function offerTerminal(message: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true }, OPEN_IN_TERMINAL)) === OPEN_IN_TERMINAL;
}

async function installRemoteSsh(services: Pick<Services, 'log'>, ext: RemoteSshExtension, openTerm: () => Promise<ConnectResult>): Promise<ConnectResult> {
  try {
    await vscode.commands.executeCommand('workbench.extensions.installExtension', ext.id);
  } catch (e) {
    const why = (e as Error)?.message ?? String(e);
    services.log.warn(`ssh: installing ${ext.id} failed: ${why}`);
    const open = await offerTerminal(
      `${ext.name} (${ext.id}) could not be installed from ${ext.marketplace}: this VS Code has no extension marketplace or cannot reach it (${why.slice(0, 120)}). Install it yourself from a .vsix, or open an SSH session in the terminal now.`,
    );
    return open ? openTerm() : { action: 'failed', message: vscode.l10n.t('could not install {0}: {1}', ext.id, why) };
  }
  // The Extensions view shows the installation: a confirmation, not a notification.
  tellDone(vscode.l10n.t('{0} is being installed. When it is ready, run "GPU Rental: Connect with Remote-SSH" again.', ext.name));
  return { action: 'install', extension: ext.id };
}

/** A running instance and its up-to-date host entry, or the result to end with. */
async function entryFor(
  services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'settings' | 'track'>,
  inst: Instance,
  keyFile?: string,
): Promise<{ writer: SshConfigWriter; alias: string } | ConnectResult> {
  const writer = createWriter(services);
  // The template's key wins (the recorded options, else the entry keeps the key it notes as the
  // template's); else the setting's; else the key the check found.
  const key = services.settings().ssh.identityFile || keyFile;
  try {
    return { writer, alias: await writer.writeEntry(inst, recordedSshOptions(services)[String(inst.id)], key ? { key } : {}) };
  } catch (e) {
    services.log.warn(`ssh: connect ${inst.id}: ${(e as Error).message}`);
    return fail(
      e instanceof SshConfigError
        ? e.message
        : `Could not write the SSH entry for instance ${inst.id} (${(e as Error).message}). Check that ~/.ssh is writable, or use Copy SSH Command.`,
    );
  }
}

/**
 * What Copy SSH Command copies (a lazily loaded part of it). Outside the demo: `ssh -p PORT
 * USER@HOST`, with `-i <key> -o IdentitiesOnly=yes` when the instance's key (the template's,
 * else its entry's, the setting's or the one the key check picked) is not one ssh tries by
 * default. In the demo, whose hosts are only in a temporary file: `ssh -F <file> <alias>`, and
 * `note` says where the file is.
 */
export async function commandToCopy(services: Services, inst: Instance): Promise<{ command: string; note?: string } | { problem: string }> {
  try {
    if (services.connection().demo) {
      const keys = await readyForSsh(services, inst);
      if ('action' in keys) return { problem: keys.action === 'failed' ? keys.message : 'No SSH key: nothing was copied.' };
      const e = await entryFor(services, inst, keys.identityFile);
      if ('action' in e) return { problem: e.action === 'failed' ? e.message : 'No SSH entry: nothing was copied.' };
      const file = e.writer.configPath;
      return {
        command: sshConfigCommandLine(file, e.alias),
        note: `The demo's SSH entries are in ${file}, a temporary file removed when the demo ends; plain "ssh ${e.alias}" does not read it.`,
      };
    }
    const addr = sshAddress(inst);
    const recorded = recordedSshOptions(services)[String(inst.id)];
    const writer = createWriter(services);
    const entry = await writer.findEntry(inst.id).catch(() => undefined);
    const ssh = await writer.templateOptions(inst.id, recorded).catch(() => recorded ?? {});
    const target = checkSshTarget(inst.id, addr?.host, addr?.port, ssh.user?.trim() || 'root');
    if (!target.ok) return { problem: target.problem };
    const home = sshHome(services);
    const key =
      (await templateKeyFor(services, inst.id)) ||
      entry?.identityFile ||
      services.settings().ssh.identityFile ||
      services.globalState.get<string>(PICKED_SSH_KEY_STATE_KEY);
    return { command: sshCommandLine(target, { home, ...(key ? { identityFile: expandHome(key, home) } : {}) }) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/**
 * `ssh -p PORT USER@HOST` in a terminal (no managed entry written): the parts checked as the SSH
 * writer checks them. The user is the template's: recorded by the create flow, else the one an
 * entry written earlier still names (another profile, state lost), else root.
 */
async function plainTerminal(
  services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'track'>,
  inst: Instance,
): Promise<ConnectResult> {
  const addr = sshAddress(inst);
  const recorded = recordedSshOptions(services)[String(inst.id)];
  const ssh = await createWriter(services)
    .templateOptions(inst.id, recorded)
    .catch(() => recorded ?? {});
  const target = checkSshTarget(inst.id, addr?.host, addr?.port, ssh.user?.trim() || 'root');
  if (!target.ok) return fail(target.problem);
  return openTerminal(undefined, ['-p', String(target.port), `${target.user}@${target.host}`]);
}

/**
 * Before any SSH to `inst`: it must be running with an address, and the account must hold a key
 * whose private half is here (without one every login is refused: the check asks once). The key
 * the check found, or the result to end with.
 */
async function readyForSsh(services: Services, inst: Instance): Promise<{ identityFile?: string } | ConnectResult> {
  if (inst.state !== 'running' || !sshAddress(inst)) {
    return fail(
      `Instance ${inst.id} is ${inst.state}, and Connect works only on running instances. Start it (or wait until it is running), then connect again.`,
    );
  }
  // dist/sshKeyCheck.js: its memory of checked origins exists once, whichever bundle asks.
  const keys = await (await import('./sshKeyCheck')).checkSshKey(services, { once: false, identityFile: await templateKeyFor(services, inst.id) });
  return keys.proceed ? { identityFile: keys.identityFile } : { action: 'cancelled' };
}

/**
 * gpuRental.openTerminal(instance?): ssh into a running instance in an integrated terminal, with
 * its generated host entry (through `ssh -F <GPU Rental's file>` when the user's SSH config does
 * not include it; the demo's entries are never in the user's config).
 */
export async function openTerminalOnInstance(services: Services, target?: unknown): Promise<ConnectResult> {
  const inst = await resolveInstance(services, target, (i) => i.state === 'running', {
    verb: 'Open Terminal on Instance',
    none: 'No instance is running, so there is nothing to open a terminal on. Start or create an instance in the GPU Rental view, then try again.',
    takeOnly: true,
  });
  if (!inst) return { action: 'cancelled' };
  const keys = await readyForSsh(services, inst);
  if ('action' in keys) return keys;
  if (!services.settings().ssh.manageConfig) return plainTerminal(services, inst);
  const e = await entryFor(services, inst, keys.identityFile);
  if ('action' in e) return e;
  return openTerminal(e.alias, await terminalArgs(services, e.writer, e.alias));
}

/**
 * `ssh <alias>` when the user's default SSH config includes ours; `-F <their config>` when it is
 * another file (remote.SSH.configFile), which plain ssh would not read; `-F <our file>` when
 * nothing includes it, and always in the demo (its entries are never in the user's config).
 */
async function terminalArgs(services: Pick<Services, 'connection'>, writer: SshConfigWriter, alias: string): Promise<string[]> {
  if (services.connection().demo) return sshArgsForEntry(alias, writer.configPath);
  const include = await writer.includeStatus().catch(() => undefined);
  if (include?.state !== 'present') return sshArgsForEntry(alias, writer.configPath);
  return sshArgsForEntry(alias, writer.userConfigPath === join(homedir(), '.ssh', 'config') ? undefined : writer.userConfigPath);
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
    if (!inst)
      return fail(`Instance ${id} is not in your instance list (it may have been destroyed). Refresh the GPU Rental view and pick a running instance.`);
  }
  const keys = await readyForSsh(services, inst);
  if ('action' in keys) return keys;

  if (!services.settings().ssh.manageConfig) {
    // Without a managed entry there is no alias for Remote-SSH to resolve: plain ssh only.
    const open = await offerTerminal(
      'GPU Rental does not manage SSH config entries (gpuRental.ssh.manageConfig is off), so it cannot open a Remote-SSH window. Open an SSH session in the terminal instead, or turn the setting on.',
    );
    return open ? plainTerminal(services, inst) : { action: 'cancelled' };
  }

  const e = await entryFor(services, inst, keys.identityFile);
  if ('action' in e) return e;
  const { writer, alias } = e;
  const opts = sshOptionsFor(services, inst.id);
  const viaFile = async () => openTerminal(alias, await terminalArgs(services, writer, alias));

  if (services.connection().demo) {
    // Simulated hosts stay out of the user's SSH config, so Remote-SSH cannot resolve them: a terminal with `ssh -F`.
    tellDone(
      vscode.l10n.t(
        'Demo: instance {0} opens in a terminal (ssh -F with a temporary file), not in Remote-SSH, so your SSH config is never changed for simulated hosts.',
        inst.id,
      ),
    );
    return viaFile();
  }

  if (!o.assumeRemoteSsh && !remoteSshInstalled()) {
    const ext = installableRemoteSsh();
    const install = `Install ${ext.name}`;
    // A decision Connect waits for: a modal (N3 of the UX audit).
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Connect opens instance {0} in a Remote-SSH window, but no Remote-SSH extension is installed. Install {1} ({2}), or open an SSH session in the terminal instead.',
        inst.id,
        ext.name,
        ext.id,
      ),
      { modal: true },
      install,
      OPEN_IN_TERMINAL,
    );
    if (pick === OPEN_IN_TERMINAL) return viaFile();
    if (pick !== install) return { action: 'cancelled' };
    return installRemoteSsh(services, ext, viaFile);
  }
  // The one place the Include question is asked on the way to a Remote-SSH window (a modal: Connect waits for it).
  const include = await ensureInclude(services, writer, false, true);
  if (include.state !== 'present') {
    const open = await offerTerminal(
      `Remote-SSH cannot find host ${alias} until your SSH config includes GPU Rental's hosts file. Run "GPU Rental: Set Up Remote-SSH Config…" to add it, or open an SSH session in the terminal now.`,
    );
    return open ? viaFile() : { action: 'cancelled' };
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
