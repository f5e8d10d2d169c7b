// The one question before renting or connecting when the account holds no key whose private
// half is on this machine (checkSshKey), and the key prompts the SSH key commands share. Its own
// bundle (import()ed by Connect and the create flow): the session's "already checked" memory
// exists once.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { sshHome } from './sshHost';
import { tellDone } from '../../core/vscode/statusMessage';
import { describeError } from '../../core/describeError';
import { PICKED_SSH_KEY_STATE_KEY } from '../../core/stateKeys';
import { ensureAccountKey, type EnsureKeyResult, type KeyPrompts, type LocalKey } from '../keys';

export const REGISTER_LOCAL_KEY = 'Register a Local Key…';
export const CREATE_KEY_PAIR = 'Create a New Key Pair';
export const CONTINUE_WITHOUT = 'Continue Without';

export function keyItem(home: string, k: LocalKey, registered?: boolean): vscode.QuickPickItem & { key: LocalKey } {
  return {
    label: k.publicPath.replace(home, '~'),
    description: `${k.type} · ${k.comment || 'no comment'}${registered ? ' · on your account' : ''}`,
    detail: k.fingerprint,
    key: k,
  };
}

/** The key paths to look at first: the template's ssh.identityFile, the setting, the key picked before. */
export function preferred(services: Pick<Services, 'globalState' | 'settings'>, extra?: string): string[] {
  return [extra, services.settings().ssh.identityFile, services.globalState.get<string>(PICKED_SSH_KEY_STATE_KEY)].filter((p): p is string => !!p?.trim());
}

function vscodeKeyPrompts(home: string): KeyPrompts {
  return {
    async choose(message, local) {
      const items = [...(local.length ? [REGISTER_LOCAL_KEY] : []), CREATE_KEY_PAIR, CONTINUE_WITHOUT];
      const detail = local.length
        ? `Keys found on this machine: ${local.map((k) => `${k.publicPath.replace(home, '~')} (${k.fingerprint})`).join(', ')}.`
        : `No key pair was found in ${home}/.ssh. A new one is created as ~/.ssh/gpu-rental_ed25519 (nothing existing is overwritten).`;
      const pick = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
      return pick === REGISTER_LOCAL_KEY ? 'register' : pick === CREATE_KEY_PAIR ? 'create' : pick === CONTINUE_WITHOUT ? 'continue' : undefined;
    },
    async pickKey(local) {
      const pick = await vscode.window.showQuickPick(
        local.map((k) => keyItem(home, k)),
        {
          title: vscode.l10n.t('GPU Rental: Register which SSH key on your account?'),
          placeHolder: vscode.l10n.t('Only the public key is sent'),
          matchOnDetail: true,
          ignoreFocusOut: true,
        },
      );
      return pick?.key;
    },
  };
}

export const running = (services: Pick<Services, 'instances'>) => () => services.instances.instances.filter((i) => i.state === 'running');

/** Remembers the key so the next check, the Host entries and Connect use it. */
export async function remember(services: Pick<Services, 'connection' | 'globalState'>, key: LocalKey): Promise<void> {
  // The demo's keys live in its temporary home, removed when it ends: nothing to remember.
  if (services.connection().demo) return;
  await services.globalState.update(PICKED_SSH_KEY_STATE_KEY, key.privatePath);
}

/** Origins (service URLs) whose key check passed, or was answered "Continue Without", in this session. */
const checkedForRent = new Set<string>();

export interface KeyCheck {
  /** False: the user dismissed the question (nothing should be rented or opened). */
  proceed: boolean;
  /** The key the Host entry should use (absolute path of the private key). */
  identityFile?: string;
}

/**
 * The check before renting (`once`: first rent of the session only) and before Connect (every
 * time: it is one request). Asks one question when the account holds none of this machine's keys.
 */
export async function checkSshKey(services: Services, o: { once: boolean; identityFile?: string }): Promise<KeyCheck> {
  const origin = services.connection().baseUrl;
  if (o.once && checkedForRent.has(origin)) return { proceed: true };
  // The demo's account is simulated and its keys live in the demo's temporary home: a key pair
  // is made and registered there without a question, so Connect in the demo just works.
  const demo = services.connection().demo;
  let r: EnsureKeyResult;
  try {
    r = await ensureAccountKey({
      api: await services.api(),
      home: sshHome(services),
      preferred: demo ? [] : preferred(services, o.identityFile),
      prompts: demo ? { choose: async () => 'create', pickKey: async () => undefined } : vscodeKeyPrompts(sshHome(services)),
      instances: running(services),
      log: services.log,
    });
  } catch (e) {
    // A failed check must not block renting or connecting: say so and go on.
    services.log.warn(`ssh: checking the account's SSH keys failed: ${describeError(e)}`);
    return { proceed: true };
  }
  if (r.outcome === 'cancelled') return { proceed: false };
  checkedForRent.add(origin);
  if (r.outcome === 'continued') {
    services.log.info('ssh: continuing without an SSH key on the account; SSH logins will be refused');
    return { proceed: true };
  }
  if (r.outcome === 'ok' || r.outcome === 'registered' || r.outcome === 'created') {
    const { key, attached } = r;
    if (services.globalState.get<string>(PICKED_SSH_KEY_STATE_KEY) !== key.privatePath) await remember(services, key);
    if (r.outcome !== 'ok') services.refreshAccount();
    if (r.outcome !== 'ok' && demo) services.log.info(`ssh: demo: made and registered the key pair ${key.privatePath}`);
    else if (r.outcome !== 'ok') {
      tellKeyAdded(services, key.fingerprint, attached);
    }
    return { proceed: true, identityFile: key.privatePath };
  }
  return { proceed: true };
}

/**
 * A key registered (by Add SSH Key, or on the way to a rent or a connect): the log and a short
 * status bar message, not a toast, which would land inside another flow's progress.
 */
export function tellKeyAdded(services: Services, fingerprint: string, attached: readonly number[]): void {
  const text = `SSH key ${fingerprint} is now on your account${attached.length ? ` and attached to running instance${attached.length === 1 ? '' : 's'} ${attached.join(', ')}` : ''}.`;
  services.log.info(`ssh: ${text}`);
  tellDone(text);
}
