// The composition root: createServices() builds the one Services every command and view gets
// (log channel, namespaced secrets, connection (URL, API key, 2FA session key, demo mode), the
// cached API client, the polled instance store, the offer search state) and starts the
// background work that belongs to no view (polling, the SSH entry sync).
import * as vscode from 'vscode';
import type { Instance, Logger, ServerTemplate, ServiceApi } from '../api/types';
import { createRedactingLogger } from '../api/redact';
import { Emitter, type Disposable, type Event } from '../model/events';
import type { ConnectionInfo, KeyValueStore, SecretStore } from '../model/ports';
import { OfferStore } from '../model/offerStore';
import { CreditStore } from '../model/credit';
import { InstanceLogStore } from '../model/instanceLogs';
import { describeProxy, readProxySettings, readSettings, type Settings } from './settings';
import { ConnectionState, checkBaseUrl, type DemoEndpoint } from '../model/connection';
import { PolledInstanceStore } from '../model/instanceStore';
import { DEFAULT_POLLER_CONFIG, type PollerConfig } from '../model/poller';
import { describeError } from '../model/errors';
import { NOT_SIGNED_IN } from '../api/errors';
import { API_KEY_SECRET } from '../account/apiKey';
import { startEntrySync } from '../ssh/entrySync';
import { SSH_OPTIONS_STATE_KEY, type SshOptionsByInstance } from '../ssh/types';
import { GUARD_NO_WARN_KEY, GuardMonitor } from '../guard/monitor';
import { InstanceGone, idList, inFlightIds, recordsById } from '../model/instanceGone';
import { sshGuardRemote } from '../guard/remote';


let clientLoaded = false;
/** The API client bundle (dist/client.js), imported on the first request. */
function loadClient(): Promise<typeof import('../api/client')> {
  clientLoaded = true;
  return import('../api/client');
}

export const SECRET_PREFIX = 'gpuRental.';
export const SESSION_KEY_SECRET = 'sessionKey';
/** Used by `npm run demo`: accepted only against a loopback base URL, never saved. */
export const DEMO_ENV_KEY = 'GPU_RENTAL_DEMO_API_KEY';

/**
 * Everything a command or view needs, created once by createServices (the composition root).
 * One type: no feature downcasts to reach more.
 */
export interface Services {
  readonly log: Logger;
  /** The client for the current connection. Rejects with a clear error when signed out. */
  api(): Promise<ServiceApi>;
  connection(): ConnectionInfo;
  readonly onDidChangeConnection: Event<ConnectionInfo>;
  /** URL, API key, 2FA session key and demo endpoint behind connection(). */
  readonly connectionState: ConnectionState;
  /** The instance list, refreshed by one poller. */
  readonly instances: PolledInstanceStore;
  /** The offer search state (query, results, error). */
  readonly offers: OfferStore;
  /** The account credit (from the instance records, else the user record). */
  readonly credit: CreditStore;
  /** The idle guard of each instance as VS Code sees it, and the warnings before it acts. */
  readonly guard: GuardMonitor;
  /** The instance logs Show Logs opened (text, follow state). */
  readonly logs: InstanceLogStore;
  /** Drops every per-instance record kept in globalState once its instance is known to be gone. */
  readonly instanceGone: InstanceGone;
  /** Service templates seen by Browse Server Templates, by hash id (read-only template documents render them). */
  readonly serverTemplates: Map<string, ServerTemplate>;
  readonly secrets: SecretStore;
  readonly globalState: KeyValueStore;
  readonly workspaceState: KeyValueStore;
  /** The current settings (read again after every change). */
  settings(): Settings;
  /** 2FA session key: set after a 2FA login, cleared on sign-out or when it expires. */
  setSessionKey(key: string | undefined): Promise<void>;
  /** Ask the Account view to fetch again (after a 2FA change). */
  refreshAccount(): void;
  readonly onDidRequestAccountRefresh: Event<void>;
  /** Things to dispose when the extension deactivates. */
  track(d: Disposable): void;
  /** Resolves once the stored keys have been read. */
  readonly ready: Promise<void>;
  /** Where media/ lives (webviews). */
  readonly extensionUri: vscode.Uri;
  /** Reveal the "GPU Rental" output channel. */
  showLog(preserveFocus?: boolean): void;
  /** Switch to (or leave, with undefined) the in-process simulator. */
  setDemo(endpoint: DemoEndpoint | undefined, stop?: () => Promise<void>): Promise<void>;
  /** Stop the demo simulator if one runs. */
  readonly demoStop: (() => Promise<void>) | undefined;
  /**
   * Money already spent, as sentences: "Cost so far: …" for an instance, "Spent today: …" (the
   * service's own total where an instance carries one, else an estimate from the rates seen).
   * Undefined until the first instance list has loaded the ledger (dist/costLedger.js).
   */
  readonly costs: { line(i: Instance): string | undefined; today(): string | undefined };
  /** Set by registerViews: the tree providers and status bar (for integration tests). */
  ui?: unknown;
}

function channelSink(ch: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => ch.trace(m),
    debug: (m) => ch.debug(m),
    info: (m) => ch.info(m),
    warn: (m) => ch.warn(m),
    error: (m) => ch.error(m),
  };
}

function keyValue(m: vscode.Memento): KeyValueStore {
  return {
    get: <T>(key: string) => m.get<T>(key),
    update: (key, value) => Promise.resolve(m.update(key, value)),
  };
}

function secretStore(secrets: vscode.SecretStorage, track: (d: Disposable) => void): SecretStore {
  const changed = new Emitter<string>();
  track(changed);
  // Another window (or this one) changed a key: forward our namespaced ones.
  track(
    secrets.onDidChange((e) => {
      if (e.key.startsWith(SECRET_PREFIX)) changed.fire(e.key.slice(SECRET_PREFIX.length));
    }),
  );
  return {
    get: async (name) => (await secrets.get(SECRET_PREFIX + name)) ?? undefined,
    store: (name, value) => Promise.resolve(secrets.store(SECRET_PREFIX + name, value)),
    delete: (name) => Promise.resolve(secrets.delete(SECRET_PREFIX + name)),
    onDidChange: changed.event,
  };
}

export function createServices(context: vscode.ExtensionContext): Services {
  const disposables: Disposable[] = [];
  const track = (d: Disposable): void => {
    context.subscriptions.push(d);
    disposables.push(d);
  };
  const outputChannel = vscode.window.createOutputChannel('GPU Rental', { log: true });
  track(outputChannel);
  const secrets = secretStore(context.secrets, track);

  let settings = readSettings();
  const conn = new ConnectionState({ baseUrl: settings.apiBaseUrl, envDemoKey: process.env[DEMO_ENV_KEY] });
  track(conn);
  const log = createRedactingLogger(channelSink(outputChannel), () => conn.knownSecrets());
  const connectionChanged = new Emitter<ConnectionInfo>();
  track(connectionChanged);

  let cached: { key: string; api: ServiceApi } | undefined;
  let demoStop: (() => Promise<void>) | undefined;

  const api = async (): Promise<ServiceApi> => {
    await ready;
    const b = conn.baseUrl();
    if (!b.ok) throw new Error(b.message);
    if (conn.token() === undefined) throw new Error(NOT_SIGNED_IN);
    // The in-process demo simulator is on loopback: never through a proxy.
    const proxy = conn.isDemo() ? null : readProxySettings();
    const key = `${conn.isDemo() ? 'demo' : 'live'} ${b.url} ${JSON.stringify(proxy)}`;
    // The client (with its pacing and list logic) is its own bundle, loaded with the first request.
    const { createApiClient } = await loadClient();
    if (cached?.key !== key) {
      if (proxy?.url || (proxy && (process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy)))
        log.info(`Reaching the service through ${describeProxy(proxy.url)}${proxy.noProxy?.length ? ` (direct for ${proxy.noProxy.length} http.noProxy entr${proxy.noProxy.length === 1 ? 'y' : 'ies'})` : ''}${proxy.strictSSL === false ? ', certificates not verified (http.proxyStrictSSL off)' : ''}.`);
      cached = { key, api: createApiClient({ baseUrl: b.url, credentials: conn, log, proxy }) };
    }
    return cached.api;
  };

  const pollerConfig = (): PollerConfig => ({
    ...DEFAULT_POLLER_CONFIG,
    intervalMs: settings.pollIntervalSeconds * 1000,
    hiddenIntervalMs: settings.hiddenPollIntervalSeconds * 1000,
  });

  const instances = new PolledInstanceStore({
    api,
    isSignedIn: () => conn.token() !== undefined,
    generation: () => conn.generation,
    config: pollerConfig,
    describeError: (e) => {
      const msg = describeError(e);
      log.warn(`Refreshing instances failed (will retry with backoff): ${msg}`);
      return msg;
    },
  });
  track(instances);

  const workspaceState = keyValue(context.workspaceState);
  const offers = new OfferStore({
    api,
    isSignedIn: () => conn.token() !== undefined,
    workspaceState,
    warn: (m) => log.warn(m),
  });
  track(offers);
  const credit = new CreditStore({ api, generation: () => conn.generation });
  track(credit);
  const accountRefresh = new Emitter<void>();
  track(accountRefresh);
  const logs = new InstanceLogStore({ api, describeError });
  track(logs);

  const setContext = (info: ConnectionInfo): void => {
    void vscode.commands.executeCommand('setContext', 'gpuRental.signedIn', info.signedIn);
    // Only the in-process demo can be left with "Exit Demo Mode"; the `npm run demo` key cannot.
    void vscode.commands.executeCommand('setContext', 'gpuRental.demo', conn.isDemo());
    // Either demo (in-process, or `npm run demo`'s key): Try Demo Mode and Clear API Key have nothing to do there.
    void vscode.commands.executeCommand('setContext', 'gpuRental.demoSession', info.demo);
  };

  // Every poll adds to the rate history (an empty list right after a connection change is "not loaded yet").
  // The ledger loads with the first list (dist/costLedger.js), off the activation path.
  let ledger: import('../model/costLedger').CostNotesImpl | undefined;
  track(
    instances.onDidChange(() => {
      if (instances.loaded) void import('../model/costLedger').then((m) => (ledger ??= new m.CostNotesImpl()).observe(instances.instances, Date.now()));
    }),
  );
  const costs = {
    line: (i: Instance) => ledger?.line(i, Date.now()),
    today: () => ledger?.today(Date.now()),
  };
  track(
    conn.onDidChange((info) => {
      ledger?.clear();
      setContext(info);
      instances.reset();
      offers.reset();
      credit.reset();
      connectionChanged.fire(info);
    }),
  );

  // An expired 2FA session key: forget it (in every window) and say so once.
  let toldSessionDropped = false;
  track(
    conn.onDidDropSession(() => {
      void secrets.delete(SESSION_KEY_SECRET);
      log.warn('The 2FA session key was rejected; falling back to the API key.');
      if (!toldSessionDropped) {
        toldSessionDropped = true;
        void vscode.window.showWarningMessage(
          'Your 2FA session has expired, so GPU Rental is using your API key again. Sign in with 2FA again if your account requires it.',
        );
      }
    }),
  );

  const loadKeys = async (): Promise<void> => {
    const [apiKey, sessionKey] = await Promise.all([secrets.get(API_KEY_SECRET), secrets.get(SESSION_KEY_SECRET)]);
    conn.setApiKey(apiKey);
    conn.setSessionKey(sessionKey);
  };

  const ready: Promise<void> = loadKeys()
    .catch((e) => log.error(`Could not read the stored API key: ${describeError(e)}`))
    .then(() => {
      setContext(conn.info());
      const b = conn.baseUrl();
      if (!b.ok) void vscode.window.showErrorMessage(b.message, 'Open Settings').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.apiBaseUrl');
      });
      instances.poller.start();
    });

  // Keys changed in this or another window.
  track(
    secrets.onDidChange((name) => {
      if (name === API_KEY_SECRET || name === SESSION_KEY_SECRET) void loadKeys();
    }),
  );

  track(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('gpuRental')) return;
      const before = settings;
      settings = readSettings();
      if (before.apiBaseUrl !== settings.apiBaseUrl) {
        const c = checkBaseUrl(settings.apiBaseUrl);
        if (!c.ok) void vscode.window.showErrorMessage(c.message);
        conn.setBaseUrl(settings.apiBaseUrl);
      } else {
        instances.poller.nudge();
      }
    }),
  );

  track(vscode.window.onDidChangeWindowState((s) => instances.poller.setFocused(s.focused)));

  const globalState = keyValue(context.globalState);
  const self: { services?: Services } = {};
  const guard = new GuardMonitor({
    instances,
    // The watchdog's state file, over SSH with the instance's managed entry (dist/ssh.js loads on the first read).
    remote: sshGuardRemote({
      target: async (id) => {
        if (!self.services || !readSettings().ssh.manageConfig) return undefined;
        const w = (await import('./ssh')).createWriter(self.services);
        const e = await w.findEntry(id);
        return e ? { configPath: w.configPath, alias: e.alias } : undefined;
      },
    }),
    defaults: () => readSettings().guard,
    state: globalState,
    log,
  });
  track(guard);

  // Per-instance records go with their instance: destroyed by us, or left out of two list reads.
  const instanceGone = new InstanceGone({
    instances,
    judging: () => conn.token() !== undefined && !conn.info().demo,
    inFlight: () => inFlightIds(globalState),
    log,
  });
  track(instanceGone);
  track(instanceGone.register(recordsById('SSH options', globalState, SSH_OPTIONS_STATE_KEY)));
  track(instanceGone.register(idList("guard: don't warn again", globalState, GUARD_NO_WARN_KEY)));

  const services: Services = {
    log,
    api,
    connection: () => conn.info(),
    onDidChangeConnection: connectionChanged.event,
    instances,
    offers,
    credit,
    guard,
    logs,
    instanceGone,
    serverTemplates: new Map(),
    secrets,
    globalState,
    workspaceState,
    settings: readSettings,
    setSessionKey: async (key) => {
      if (key) await secrets.store(SESSION_KEY_SECRET, key);
      else await secrets.delete(SESSION_KEY_SECRET);
      conn.setSessionKey(key);
    },
    refreshAccount: () => accountRefresh.fire(),
    onDidRequestAccountRefresh: accountRefresh.event,
    track,
    connectionState: conn,
    ready,
    extensionUri: context.extensionUri,
    showLog: (preserveFocus) => outputChannel.show(preserveFocus),
    setDemo: async (endpoint, stop) => {
      const previous = demoStop;
      demoStop = endpoint ? stop : undefined;
      conn.setDemo(endpoint);
      if (previous && previous !== stop) await previous().catch(() => undefined);
    },
    costs,
    get demoStop() {
      return demoStop;
    },
  };
  self.services = services;
  // Host entries follow the instance list. The writer (dist/ssh.js) loads at the first
  // reconcile after the list has loaded (startup clean-up).
  track(
    startEntrySync({
      instances,
      enabled: () => readSettings().ssh.manageConfig && conn.token() !== undefined,
      writer: async () => (await import('./ssh')).createWriter(services),
      registered: () => services.globalState.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {},
      log,
    }),
  );
  track({ dispose: () => void demoStop?.().catch(() => undefined) });
  // Keep-alive sockets must not outlive the extension host's shutdown.
  track({ dispose: () => void (clientLoaded ? loadClient().then((m) => m.closeApiTransport()) : Promise.resolve()).catch(() => undefined) });
  return services;
}
