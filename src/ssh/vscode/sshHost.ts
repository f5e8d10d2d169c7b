// The VS Code side of SSH entries: the config writer as this machine's settings configure it,
// the per-instance options the create flow recorded, the one-time question about the Include
// line, and the entry writer the create flow uses. A lazily loaded bundle (dist/sshHost.js): it
// holds the writer, and the activation path reaches it only through import().
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_KEY_NAME } from '../keys';
import type { Instance } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { readSettings } from '../../core/vscode/settings';
import { INCLUDE_DECLINED_KEY, PICKED_SSH_KEY_STATE_KEY, SSH_OPTIONS_STATE_KEY } from '../../core/stateKeys';
import { SshConfigError, SshConfigWriter } from '../sshConfigWriter';
import { DemoSshHome } from '../demoHome';

export { SshConfigError };
import type { IncludeStatus } from '../userConfig';
import { type SshEntryWriter, type SshOptions, type SshOptionsByInstance } from '../sshTypes';

/** Entries are tagged with the service they belong to, so reconcile never touches another account's. */
export function originOf(services: Pick<Services, 'connection'>): string {
  const c = services.connection();
  if (c.demo) return 'demo';
  try {
    return new URL(c.baseUrl).host || 'default';
  } catch {
    return 'default';
  }
}

/**
 * The home whose ~/.ssh is managed. GPU_RENTAL_SSH_HOME lets integration tests (which share
 * the extension host process) point the writer at a temporary directory. The demo's simulated
 * hosts never go to the real one: they live in a temporary HOME removed when the demo ends.
 */
export function sshHome(services: Pick<Services, 'connection' | 'onDidChangeConnection' | 'track'>): string {
  if (services.connection().demo) return demoSshHome(services).path();
  return process.env.GPU_RENTAL_SSH_HOME || homedir();
}

let demoHome: DemoSshHome | undefined;

/** The demo's temporary HOME: made on first use, removed when the demo ends (Exit Demo Mode, window closed). */
export function demoSshHome(services: Pick<Services, 'onDidChangeConnection' | 'track'>): DemoSshHome {
  if (!demoHome) {
    const home = (demoHome = new DemoSshHome());
    services.track(services.onDidChangeConnection((info) => !info.demo && home.dispose()));
    services.track({ dispose: () => home.dispose() });
  }
  return demoHome;
}

/** The key pair the demo's key check made in its temporary home, once it exists. */
function demoKey(services: Pick<Services, 'connection' | 'onDidChangeConnection' | 'track'>): string | undefined {
  const p = join(sshHome(services), '.ssh', GENERATED_KEY_NAME);
  return existsSync(p) ? p : undefined;
}

/** A writer configured from the current settings (settings may change between calls). */
export function createWriter(services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'track'>): SshConfigWriter {
  const s = readSettings().ssh;
  const demo = services.connection().demo;
  // The setting wins; else the key the user registered or picked (the key check remembers it), in
  // the demo the pair its key check made: every entry then logs in (the idle guard's reads too),
  // not only the ones Connect rewrote.
  const identityFile = s.identityFile || (demo ? demoKey(services) : picked(services));
  return new SshConfigWriter({
    home: sshHome(services),
    origin: originOf(services),
    log: services.log,
    ...(identityFile ? { identityFile } : {}),
    // The user's remote.SSH.configFile is not the demo's business.
    ...(s.userConfigFile && !demo ? { userConfigFile: s.userConfigFile } : {}),
  });
}

function picked(services: Pick<Services, 'globalState'>): string | undefined {
  return services.globalState.get<string>(PICKED_SSH_KEY_STATE_KEY) || undefined;
}

export function recordedSshOptions(services: Pick<Services, 'globalState'>): SshOptionsByInstance {
  return services.globalState.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {};
}

export function sshOptionsFor(services: Pick<Services, 'globalState'>, id: number): SshOptions {
  return recordedSshOptions(services)[String(id)] ?? {};
}

/**
 * The key an instance's template names: what the create flow recorded, else (those records are
 * per VS Code profile and machine) what its managed entry notes as the template's.
 */
export async function templateKeyFor(
  services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'track'>,
  id: number,
): Promise<string | undefined> {
  const recorded = recordedSshOptions(services)[String(id)];
  if (recorded) return recorded.identityFile;
  const entry = await createWriter(services)
    .findEntry(id)
    .catch(() => undefined);
  return entry?.templateIdentity ? entry.identityFile : undefined;
}

export const ADD_INCLUDE = 'Add Include Line';
export const REMOVE_BOM = 'Remove Byte-Order Mark';
export const NOT_NOW = 'Not Now';
export const COPY_LINE = 'Copy Line';

/**
 * Makes sure the user's SSH config includes ours. `explicit` means the user asked for it
 * (a command), so an earlier "Not Now" does not silence the question. `modal` is for callers
 * that wait for the answer (Connect, the setup command): a notification hides itself after a
 * few seconds, and Connect then seemed to do nothing. Without it (after a creation, not
 * awaited) the question is a notification, and one at a time.
 */
export function ensureInclude(
  services: Pick<Services, 'connection' | 'globalState'>,
  writer: SshConfigWriter,
  explicit: boolean,
  modal = false,
): Promise<IncludeStatus> {
  // Demo hosts are reached with `ssh -F <temp file>`: the user's SSH config is never offered a line for them.
  if (services.connection().demo) return writer.includeStatus();
  if (explicit || modal) return askInclude(services, writer, explicit, modal);
  asking ??= askInclude(services, writer, false, false).finally(() => (asking = undefined));
  return asking;
}

let asking: Promise<IncludeStatus> | undefined;

const BOM_NOTE = "starts with a byte-order mark (BOM), which OpenSSH refuses: ssh and Remote-SSH stop at its first line with 'Bad configuration option'";

function includeQuestion(status: Extract<IncludeStatus, { state: 'absent' }>): string {
  const file = `your SSH config (${status.userConfig})`;
  if (status.includeThere)
    return `The Include line for GPU Rental's hosts is in ${file}, but the file ${BOM_NOTE}. Remove those 3 invisible bytes? Nothing else in the file changes.`;
  const bom = status.bom ? ` It also removes the byte-order mark the file starts with, which OpenSSH refuses ('Bad configuration option' on line 1).` : '';
  return `Remote-SSH finds GPU Rental's hosts only if ${file} includes the file GPU Rental manages. Add one Include line at its top?${bom} Your own entries stay exactly as they are.`;
}

async function askInclude(services: Pick<Services, 'globalState'>, writer: SshConfigWriter, explicit: boolean, modal: boolean): Promise<IncludeStatus> {
  let status = await writer.includeStatus();
  if (status.state === 'absent') {
    if (!explicit && services.globalState.get<boolean>(INCLUDE_DECLINED_KEY)) return status;
    const question = includeQuestion(status);
    const yes = status.includeThere ? REMOVE_BOM : ADD_INCLUDE;
    const picked = modal
      ? await vscode.window.showInformationMessage<vscode.MessageItem>(question, { modal: true }, { title: yes }, { title: NOT_NOW, isCloseAffordance: true })
      : await vscode.window.showInformationMessage(question, yes, NOT_NOW);
    const pick = typeof picked === 'string' ? picked : picked?.title;
    if (pick !== yes) {
      await services.globalState.update(INCLUDE_DECLINED_KEY, true);
      return status;
    }
    await services.globalState.update(INCLUDE_DECLINED_KEY, undefined);
    status = await writer.addInclude();
  }
  if (status.state === 'refused') {
    const pick = await vscode.window.showWarningMessage(status.message, COPY_LINE);
    if (pick === COPY_LINE) await vscode.env.clipboard.writeText(status.line);
  }
  return status;
}

/** The SshEntryWriter the create flow uses, with the current settings. */
export function sshEntryWriterFor(services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'track'>): SshEntryWriter {
  return {
    async writeEntry(instance: Instance, ssh: SshOptions): Promise<string> {
      if (!readSettings().ssh.manageConfig) {
        throw new SshConfigError(
          'io',
          'SSH config management is off (gpuRental.ssh.manageConfig), so no Remote-SSH entry was written. Use Copy SSH Command, or turn the setting on and connect.',
        );
      }
      // No Include question here: Connect asks it (once, in a modal) when Remote-SSH needs the
      // line. Asking here too put a notification and Connect's modal on screen at the same moment.
      return createWriter(services).writeEntry(instance, ssh);
    },
  };
}
