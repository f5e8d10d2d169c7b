// The vscode-backed Services: log channel, namespaced secrets, connection (URL, API key,
// 2FA session key, demo mode), the cached API client and the polled instance store.
import * as vscode from 'vscode';
import type { Logger, ServiceApi } from '../api/types';
import { closeApiTransport, createApiClient } from '../api/client';
import { createRedactingLogger } from '../api/redact';
import { Emitter, type Disposable } from '../model/events';
import type { ConnectionInfo, KeyValueStore, SecretStore, Services } from '../model/services';
import { ConnectionState, checkBaseUrl, type DemoEndpoint } from '../model/connection';
import { PolledInstanceStore } from '../model/instanceStore';
import { DEFAULT_POLLER_CONFIG, type PollerConfig } from '../model/poller';
import { describeError } from '../model/errors';
import { API_KEY_SECRET } from '../account/apiKey';

export const SECRET_PREFIX = 'gpuRental.';
export const SESSION_KEY_SECRET = 'sessionKey';
/** Used by `npm run demo`: accepted only against a loopback base URL, never saved. */
export const DEMO_ENV_KEY = 'GPU_RENTAL_DEMO_API_KEY';

export interface Settings {
  apiBaseUrl: string | undefined;
  pollIntervalSeconds: number;
  hiddenPollIntervalSeconds: number;
  lowCreditWarningHours: number;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('gpuRental');
  const poll = Math.max(5, Number(c.get<number>('pollIntervalSeconds', 10)) || 10);
  const hidden = Math.max(poll, Number(c.get<number>('hiddenPollIntervalSeconds', 60)) || 60);
  return {
    apiBaseUrl: c.get<string>('apiBaseUrl') || undefined,
    pollIntervalSeconds: poll,
    hiddenPollIntervalSeconds: hidden,
    lowCreditWarningHours: Math.max(0, Number(c.get<number>('lowCreditWarningHours', 12)) || 0),
  };
}

/** What the sidebar, status bar and key/demo commands need beyond the shared contract. */
export interface CoreServices extends Services {
  readonly instances: PolledInstanceStore;
  readonly connectionState: ConnectionState;
  /** Resolves once the stored keys have been read. */
  readonly ready: Promise<void>;
  readonly outputChannel: vscode.LogOutputChannel;
  /** Switch to (or leave, with undefined) the in-process simulator. */
  setDemo(endpoint: DemoEndpoint | undefined, stop?: () => Promise<void>): Promise<void>;
  /** Stop the demo simulator if one runs. */
  readonly demoStop: (() => Promise<void>) | undefined;
  /** Set by registerSidebar: the tree providers and status bar (for integration tests). */
  ui?: unknown;
}

const CORE = Symbol('gpuRental.core');

/** The full services object (registerSidebar etc. receive it typed as Services). */
export function core(services: Services): CoreServices {
  if (!(services as unknown as Record<symbol, unknown>)[CORE]) throw new Error('GPU Rental: services were not created by createServices');
  return services as CoreServices;
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
  let ready!: Promise<void>;
  let demoStop: (() => Promise<void>) | undefined;

  const api = async (): Promise<ServiceApi> => {
    await ready;
    const b = conn.baseUrl();
    if (!b.ok) throw new Error(b.message);
    if (conn.token() === undefined) {
      throw new Error('You are not signed in to GPU Rental. Run "GPU Rental: Set API Key" (or "Try Demo Mode") and try again.');
    }
    const key = `${conn.isDemo() ? 'demo' : 'live'} ${b.url}`;
    if (cached?.key !== key) cached = { key, api: createApiClient({ baseUrl: b.url, credentials: conn, log }) };
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

  const setContext = (info: ConnectionInfo): void => {
    void vscode.commands.executeCommand('setContext', 'gpuRental.signedIn', info.signedIn);
    // Only the in-process demo can be left with "Exit Demo Mode"; the `npm run demo` key cannot.
    void vscode.commands.executeCommand('setContext', 'gpuRental.demo', conn.isDemo());
  };

  track(
    conn.onDidChange((info) => {
      setContext(info);
      instances.reset();
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

  ready = loadKeys()
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

  const services: CoreServices & { [CORE]: true } = {
    [CORE]: true,
    log,
    api,
    connection: () => conn.info(),
    onDidChangeConnection: connectionChanged.event,
    instances,
    secrets,
    globalState: keyValue(context.globalState),
    workspaceState: keyValue(context.workspaceState),
    setSessionKey: async (key) => {
      if (key) await secrets.store(SESSION_KEY_SECRET, key);
      else await secrets.delete(SESSION_KEY_SECRET);
      conn.setSessionKey(key);
    },
    track,
    connectionState: conn,
    ready,
    outputChannel,
    setDemo: async (endpoint, stop) => {
      const previous = demoStop;
      demoStop = endpoint ? stop : undefined;
      conn.setDemo(endpoint);
      if (previous && previous !== stop) await previous().catch(() => undefined);
    },
    get demoStop() {
      return demoStop;
    },
  };
  track({ dispose: () => void demoStop?.().catch(() => undefined) });
  // Keep-alive sockets must not outlive the extension host's shutdown.
  track({ dispose: () => void closeApiTransport().catch(() => undefined) });
  return services;
}
