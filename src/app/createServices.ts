// The composition root: createServices() builds the one Services every command and view gets
// (log channel, namespaced secrets, connection (URL, API key, 2FA session key, demo mode), the
// cached API client, the polled instance store, the offer search state) and starts the
// background work that belongs to no view (polling, the SSH entry sync).
import * as vscode from 'vscode';
import type { Instance, Logger, ServiceApi } from '../api/types';
import type { Services } from '../core/vscode/services';
import { createRedactingLogger } from '../api/redact';
import { Emitter, type Disposable } from '../core/events';
import type { ConnectionInfo, KeyValueStore, SecretStore } from '../core/ports';
import { OfferStore } from '../offers/offerStore';
import { CreditStore } from '../costs/credit';
import { InstanceLogStore } from '../logs/logStore';
import { describeProxy, readProxySettings, readSettings } from '../core/vscode/settings';
import { isLoopbackUrl } from '../api/loopback';
import { ConnectionState, checkBaseUrl } from '../core/connection';
import { PolledInstanceStore } from '../instances/instanceStore';
import { DEFAULT_POLLER_CONFIG, type PollerConfig } from '../core/poller';
import { describeError } from '../core/describeError';
import { NOT_SIGNED_IN } from '../api/errors';
import { API_KEY_SECRET } from '../account/apiKey';
import { startEntrySync } from '../ssh/entrySync';
import { SSH_OPTIONS_STATE_KEY, type SshOptionsByInstance } from '../ssh/sshTypes';
import { GUARD_NO_WARN_KEY, GuardMonitor } from '../guard/monitor';
import { InstanceGone, idList, inFlightIds, recordsById } from '../instances/instanceGone';
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
    // This computer (the demo simulator, a local proxy or tunnel) is never reached through a proxy (src/api/loopback.ts).
    const proxy = conn.isDemo() || isLoopbackUrl(b.url) ? null : readProxySettings();
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
    inFlight: () => inFlightIds(keyValue(context.globalState)),
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
  let ledger: import('../costs/costLedger').CostNotesImpl | undefined;
  track(
    instances.onDidChange(() => {
      if (instances.loaded) void import('../costs/costLedger').then((m) => (ledger ??= new m.CostNotesImpl()).observe(instances.instances, Date.now()));
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
  const guard = new GuardMonitor({
    instances,
    // The watchdog's state file, over SSH with the instance's managed entry (dist/sshHost.js loads on the first read).
    remote: sshGuardRemote({
      target: async (id) => {
        // Called by the monitor's reads, which start with the first poll, after `services` below exists.
        if (!readSettings().ssh.manageConfig) return undefined;
        const w = (await import('../ssh/vscode/sshHost')).createWriter(services);
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
  // Host entries follow the instance list. The writer (dist/sshHost.js) loads at the first
  // reconcile after the list has loaded (startup clean-up).
  track(
    startEntrySync({
      instances,
      enabled: () => readSettings().ssh.manageConfig && conn.token() !== undefined,
      writer: async () => (await import('../ssh/vscode/sshHost')).createWriter(services),
      registered: () => services.globalState.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {},
      log,
    }),
  );
  track({ dispose: () => void demoStop?.().catch(() => undefined) });
  // Keep-alive sockets must not outlive the extension host's shutdown.
  track({ dispose: () => void (clientLoaded ? loadClient().then((m) => m.closeApiTransport()) : Promise.resolve()).catch(() => undefined) });
  return services;
}
