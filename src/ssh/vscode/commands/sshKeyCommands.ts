// The account's SSH keys in VS Code: gpuRental.addSshKey, removeSshKey, attachSshKey,
// copySshPublicKey. A lazily loaded bundle (src/app/commandTable.ts); the check before renting or
// connecting is src/ssh/vscode/sshKeyCheck.ts.
import * as vscode from 'vscode';
import type { AccountSshKey, Instance } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { tellDone } from '../../../core/vscode/statusMessage';
import { sshHome } from '../sshHost';
import { CommandFailure, failedTo, fixByCommand } from '../../../core/vscode/commandFailure';
import { instanceIdOf } from '../../../core/instanceRef';
import {
  noKeyMessage,
  SshKeyError,
  createKeyPair,
  describePublicKey,
  findLocalKeys,
  readLocalKey,
  registerKey,
  type KeyChoice,
  type LocalKey,
} from '../../keys';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { keyItem, preferred, remember, running, tellKeyAdded } from '../sshKeyCheck';
import { skipsConfirmation, unattendedAllowed } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';

const ADD_SSH_KEY = () => fixByCommand(vscode.l10n.t('Add SSH Key…'), 'gpuRental.addSshKey');

/**
 * A key file the caller named (not one the user picked) goes onto the account or into an
 * instance only with consent to unattended calls (gpuRental.scripting.allowUnattended), else
 * when the user says yes: another extension must not let its own key into the machines.
 */
async function callerKeyAllowed(services: Pick<Services, 'log' | 'settings'>, key: LocalKey, question: string, detail: string): Promise<boolean> {
  if (unattendedAllowed(consentOf(services), 'SSH key from a caller')) return true;
  const ok = await vscode.window.showWarningMessage(
    question,
    { modal: true, detail: `${key.fingerprint} (${key.comment || 'no comment'})\n${key.publicPath}\n${detail}` },
    vscode.l10n.t('Allow'),
  );
  return ok === vscode.l10n.t('Allow');
}

/** Arguments of gpuRental.addSshKey. */
export interface AddSshKeyArgs {
  /** A .pub file (or the private key beside it): registered without any prompt. */
  publicKeyPath?: string;
}

/**
 * gpuRental.addSshKey({ publicKeyPath }?): registers a key on the account (and attaches it to
 * running instances). Resolves the account's key record, or undefined when cancelled or failed.
 */
export async function addSshKey(services: Services, arg?: unknown): Promise<AccountSshKey | undefined> {
  const path = arg && typeof arg === 'object' && typeof (arg as AddSshKeyArgs).publicKeyPath === 'string' ? (arg as AddSshKeyArgs).publicKeyPath : undefined;
  let key: LocalKey | undefined;
  try {
    if (path) {
      // Scripts may register a key whose private half lives elsewhere.
      key = await readLocalKey(path, sshHome(services), false);
      const ids = running(services)().map((i) => i.id);
      const where = ids.length ? ` and attach it to running instance${ids.length === 1 ? '' : 's'} ${ids.join(', ')}` : '';
      if (
        !(await callerKeyAllowed(
          services,
          key,
          `Add this SSH key to your account${where}?`,
          'Whoever holds its private key can then log in to your instances.',
        ))
      )
        return undefined;
    } else {
      key = await pickOrCreate(services);
      if (!key) return undefined;
    }
    const api = await services.api();
    const { record, attached } = await registerKey({ api, instances: running(services), log: services.log }, key);
    if (
      key.privatePath &&
      (await readLocalKey(key.privatePath, sshHome(services)).then(
        () => true,
        () => false,
      ))
    )
      await remember(services, key);
    services.refreshAccount();
    if (!path) {
      tellKeyAdded(services, key.fingerprint, attached);
    }
    return record;
  } catch (e) {
    throw e instanceof SshKeyError ? new CommandFailure(e.message) : failedTo(e, (why) => vscode.l10n.t('Could not add the SSH key: {0}', why));
  }
}

const CREATE_ITEM = '$(add) Create a new key pair for GPU Rental';
const BROWSE_ITEM = '$(folder-opened) Choose a public key file…';

async function pickOrCreate(
  services: Pick<Services, 'api' | 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'settings' | 'track'>,
): Promise<LocalKey | undefined> {
  const local = await findLocalKeys(sshHome(services), preferred(services));
  let onAccount = new Set<string>();
  try {
    onAccount = new Set((await (await services.api()).listSshKeys()).map((k) => describePublicKey(k.public_key)?.fingerprint ?? ''));
  } catch {
    // the marks are a convenience
  }
  const items: Array<vscode.QuickPickItem & { key?: LocalKey; action?: 'create' | 'browse' }> = [
    ...local.map((k) => keyItem(sshHome(services), k, onAccount.has(k.fingerprint))),
    { label: CREATE_ITEM, detail: vscode.l10n.t('~/.ssh/gpu-rental_ed25519 (ed25519; nothing existing is overwritten)'), action: 'create' },
    { label: BROWSE_ITEM, action: 'browse' },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('GPU Rental: Add SSH Key to your account'),
    placeHolder: vscode.l10n.t('Only the public key is sent'),
    matchOnDetail: true,
  });
  if (!pick) return undefined;
  if (pick.key) return pick.key;
  if (pick.action === 'create') return createKeyPair({ home: sshHome(services), log: services.log });
  const uris = await vscode.window.showOpenDialog({
    title: vscode.l10n.t('Public key to add (.pub)'),
    canSelectMany: false,
    defaultUri: vscode.Uri.file(`${sshHome(services)}/.ssh`),
    filters: { 'Public keys': ['pub'], 'All files': ['*'] },
  });
  return uris?.[0] ? readLocalKey(uris[0].fsPath, sshHome(services), false) : undefined;
}

/** A key record from a tree row (`{ sshKey }`), an id, or `{ id }`. */
function keyIdOf(arg: unknown): number | undefined {
  if (typeof arg === 'number' && Number.isInteger(arg) && arg > 0) return arg;
  if (arg && typeof arg === 'object') {
    const o = arg as { id?: unknown; sshKey?: { id?: unknown } };
    if (o.sshKey && typeof o.sshKey.id === 'number') return o.sshKey.id;
    if (typeof o.id === 'number') return o.id;
  }
  return undefined;
}

function keyLabel(k: AccountSshKey): string {
  const d = describePublicKey(k.public_key);
  return d ? `${d.comment || d.type} (${d.fingerprint})` : `key ${k.id}`;
}

async function pickAccountKey(services: Pick<Services, 'api'>, title: string): Promise<AccountSshKey | undefined> {
  const keys = await (await services.api()).listSshKeys();
  if (!keys.length) {
    throw new CommandFailure(vscode.l10n.t('Your account has no SSH keys. Add one with "GPU Rental: Add SSH Key…".'), [ADD_SSH_KEY()]);
  }
  const pick = await vscode.window.showQuickPick(
    keys.map((k) => {
      const d = describePublicKey(k.public_key);
      return { label: d?.comment || d?.type || `key ${k.id}`, description: d?.type, detail: d?.fingerprint ?? k.public_key.slice(0, 60), key: k };
    }),
    { title, matchOnDetail: true },
  );
  return pick?.key;
}

/** gpuRental.removeSshKey(row | id | { id, skipConfirmation }?): removes a key from the account after confirming. */
export async function removeSshKey(
  services: Pick<Services, 'api' | 'log' | 'refreshAccount' | 'settings'>,
  arg?: unknown,
): Promise<{ removed: number } | undefined> {
  try {
    const api = await services.api();
    const id = keyIdOf(arg);
    const skip = skipsConfirmation(consentOf(services), arg, 'Remove SSH Key');
    const key =
      id === undefined
        ? await pickAccountKey(services, 'GPU Rental: Remove which SSH key from your account?')
        : (await api.listSshKeys()).find((k) => k.id === id);
    if (!key) {
      if (id !== undefined)
        throw new CommandFailure(vscode.l10n.t('Your account has no SSH key {0} (it may have been removed already). Refresh the Account view.', id));
      return undefined;
    }
    if (!skip) {
      const ok = await vscode.window.showWarningMessage(
        vscode.l10n.t('Remove SSH key {0} from your account?', keyLabel(key)),
        {
          modal: true,
          detail: vscode.l10n.t(
            'Instances created from now on will not accept it. Running instances keep the keys they have. The key files on this machine are not touched.',
          ),
        },
        vscode.l10n.t('Remove'),
      );
      if (ok !== vscode.l10n.t('Remove')) return undefined;
    }
    await api.deleteSshKey(key.id);
    services.log.info(`ssh: removed account key ${key.id}`);
    services.refreshAccount();
    return { removed: key.id };
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not remove the SSH key: {0}', why));
  }
}

/** Arguments of gpuRental.attachSshKey. */
export interface AttachSshKeyArgs {
  instanceId?: number;
  publicKeyPath?: string;
}

/**
 * gpuRental.attachSshKey({ instanceId, publicKeyPath }?): lets one more key into a running
 * instance (it accepts only the account keys of its creation). Resolves what was attached.
 */
export async function attachSshKey(
  services: Pick<Services, 'api' | 'connection' | 'globalState' | 'instances' | 'log' | 'onDidChangeConnection' | 'settings' | 'track'>,
  arg?: unknown,
): Promise<{ instanceId: number; fingerprint: string } | undefined> {
  const a = (arg && typeof arg === 'object' ? arg : {}) as AttachSshKeyArgs;
  try {
    const inst: Instance | undefined = await resolveInstance(services, instanceIdOf(a.instanceId ?? arg) ?? undefined, (i) => i.state === 'running', {
      verb: 'Attach SSH Key',
      none: 'No instance is running, so there is nothing to attach a key to.',
    });
    if (!inst) return undefined;
    let key: LocalKey | undefined;
    if (typeof a.publicKeyPath === 'string') {
      key = await readLocalKey(a.publicKeyPath, sshHome(services), false);
      if (!(await callerKeyAllowed(services, key, `Attach this SSH key to instance ${inst.id}?`, 'Whoever holds its private key can then log in to it.')))
        return undefined;
    } else {
      const local = await findLocalKeys(sshHome(services), preferred(services));
      if (!local.length) {
        throw new CommandFailure(vscode.l10n.t('No SSH key pair was found on this machine. Add one with "GPU Rental: Add SSH Key…" first.'), [ADD_SSH_KEY()]);
      }
      key =
        local.length === 1
          ? local[0]
          : (
              await vscode.window.showQuickPick(
                local.map((k) => keyItem(sshHome(services), k)),
                { title: vscode.l10n.t('GPU Rental: Attach which key to instance {0}?', inst.id), matchOnDetail: true },
              )
            )?.key;
    }
    if (!key) return undefined;
    await (await services.api()).attachSshKey(inst.id, key.line);
    services.log.info(`ssh: attached key ${key.fingerprint} to instance ${inst.id}`);
    return { instanceId: inst.id, fingerprint: key.fingerprint };
  } catch (e) {
    throw e instanceof SshKeyError ? new CommandFailure(e.message) : failedTo(e, (why) => vscode.l10n.t('Could not attach the SSH key: {0}', why));
  }
}

/** gpuRental.copySshPublicKey(row | id): copies an account key's public key line. */
export async function copySshPublicKey(services: Pick<Services, 'api'>, arg?: unknown): Promise<string | undefined> {
  try {
    const id = keyIdOf(arg);
    const fromRow = arg && typeof arg === 'object' ? (arg as { sshKey?: AccountSshKey }).sshKey : undefined;
    const key =
      fromRow ??
      (id === undefined
        ? await pickAccountKey(services, 'GPU Rental: Copy which public key?')
        : (await (await services.api()).listSshKeys()).find((k) => k.id === id));
    if (!key) return undefined;
    await vscode.env.clipboard.writeText(key.public_key);
    tellDone(vscode.l10n.t('Public key copied.'));
    return key.public_key;
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not copy the public key: {0}', why));
  }
}

export { noKeyMessage, type KeyChoice };
