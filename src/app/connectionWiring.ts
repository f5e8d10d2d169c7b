// How the connection moves everything else: the stored keys read at start (and again when
// another window changes them), the context keys of menus and views, the stores reset when the
// URL, key or demo mode changes, an expired 2FA session dropped once, and the settings watched.
import { background } from '../core/background';
import * as vscode from 'vscode';
import type { ConnectionInfo } from '../core/ports';
import { checkBaseUrl } from '../core/connection';
import { describeError } from '../core/describeError';
import type { ApiKeyOwner } from '../account/apiKey';
import type { PolledInstanceStore } from '../instances/instanceStore';
import type { ServiceBase } from './serviceBase';

const SIGN_IN_2FA = 'Sign In with 2FA';

export const SESSION_KEY_SECRET = 'sessionKey';

/** What a connection change resets. */
export interface ConnectionDependents {
  /** Reads the stored API key into the connection. */
  apiKey: Pick<ApiKeyOwner, 'reload'>;
  instances: PolledInstanceStore;
  /** Forget the rate history (before the context keys change). */
  clearCosts(): void;
  /** Empty the stores of the previous connection. */
  resetStores(): void;
}

function setContext(base: ServiceBase, info: ConnectionInfo): void {
  background(vscode.commands.executeCommand('setContext', 'gpuRental.signedIn', info.signedIn), base.log, 'setting the signed-in context');
  // Only the in-process demo can be left with "Exit Demo Mode"; the `npm run demo` key cannot.
  background(vscode.commands.executeCommand('setContext', 'gpuRental.demo', base.conn.isDemo()), base.log, 'setting the demo context');
  // Either demo (in-process, or `npm run demo`'s key): Try Demo Mode and Clear API Key have nothing to do there.
  background(vscode.commands.executeCommand('setContext', 'gpuRental.demoSession', info.demo), base.log, 'setting the demo-session context');
}

function watchSession(base: ServiceBase): void {
  // An expired 2FA session key: forget it (in every window) and say so once.
  let toldSessionDropped = false;
  base.track(
    base.conn.onDidDropSession(() => {
      background(base.secrets.delete(SESSION_KEY_SECRET), base.log, 'forgetting the expired 2FA session key');
      base.log.warn('The 2FA session key was rejected; falling back to the API key.');
      if (!toldSessionDropped) {
        toldSessionDropped = true;
        // N5 of the UX audit: the button that resolves it.
        background(
          vscode.window
            .showWarningMessage(
              vscode.l10n.t('Your 2FA session has expired, so GPU Rental is using your API key again. Sign in with 2FA again if your account requires it.'),
              SIGN_IN_2FA,
            )
            .then((a) => (a === SIGN_IN_2FA ? vscode.commands.executeCommand('gpuRental.tfa.signIn') : undefined)),
          base.log,
          'the 2FA expiry notice',
        );
      }
    }),
  );
}

function watchSettings(base: ServiceBase, instances: PolledInstanceStore): void {
  base.track(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('gpuRental')) return;
      const { apiBaseUrlChanged, apiBaseUrl } = base.reloadSettings();
      if (apiBaseUrlChanged) {
        // The settings editor flags a bad URL as it is typed (the schema's pattern); a toast per keystroke would not help.
        const c = checkBaseUrl(apiBaseUrl);
        if (!c.ok) base.log.warn(c.message);
        base.conn.setBaseUrl(apiBaseUrl);
      } else {
        instances.poller.nudge();
      }
    }),
  );
}

/** Wires the connection to the stores and returns `ready`: the stored keys read and polling started. */
export function wireConnection(base: ServiceBase, deps: ConnectionDependents): Promise<void> {
  const { conn, secrets, log } = base;
  const { instances } = deps;
  base.track(
    conn.onDidChange((info) => {
      deps.clearCosts();
      setContext(base, info);
      deps.resetStores();
      base.connectionChanged.fire(info);
    }),
  );
  watchSession(base);

  const loadKeys = async (): Promise<void> => {
    const [, sessionKey] = await Promise.all([deps.apiKey.reload(), secrets.get(SESSION_KEY_SECRET)]);
    conn.setSessionKey(sessionKey);
  };

  // Read once activate() has returned: activation itself waits for no secret.
  const ready: Promise<void> = Promise.resolve()
    .then(loadKeys)
    .catch((e) => log.error(`Could not read the stored API key: ${describeError(e)}`))
    .then(() => {
      setContext(base, conn.info());
      // The welcome views wait for this, so a signed-in user never sees them flash at start.
      background(vscode.commands.executeCommand('setContext', 'gpuRental.ready', true), log, 'setting the ready context');
      const b = conn.baseUrl();
      if (!b.ok)
        background(
          vscode.window.showErrorMessage(b.message, vscode.l10n.t('Open Settings')).then((a) => {
            if (a)
              background(
                vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.apiBaseUrl'),
                log,
                'opening the gpuRental.apiBaseUrl setting',
              );
          }),
          log,
          'the base URL notice',
        );
      instances.poller.start();
    });

  // Keys changed in this or another window.
  base.track(
    secrets.onDidChange((name) => {
      if (name === SESSION_KEY_SECRET) background(loadKeys(), log, 'reading the stored keys');
      else background(deps.apiKey.reload(name), log, 'reading the stored API key');
    }),
  );
  watchSettings(base, instances);
  base.track(vscode.window.onDidChangeWindowState((s) => instances.poller.setFocused(s.focused)));
  return ready;
}
