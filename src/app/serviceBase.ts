// What every part of the composition root builds on: the disposables of the extension, the log
// channel (redacted), the namespaced secrets and states, the settings as last read, and the
// connection (URL, API key, 2FA session key, demo mode).
import * as vscode from 'vscode';
import type { Logger } from '../api/types';
import { createRedactingLogger } from '../api/redact';
import { Emitter, type Disposable } from '../core/events';
import type { ConnectionInfo, KeyValueStore, SecretStore } from '../core/ports';
import { readApiBaseUrl, readSettings, type Settings } from '../core/vscode/settings';
import { ConnectionState } from '../core/connection';
import { channelSink, keyValue, secretStore } from './vscodeAdapters';

/** Used by `npm run demo`: accepted only against a loopback base URL, never saved. */
const DEMO_ENV_KEY = 'GPU_RENTAL_DEMO_API_KEY';

export interface ServiceBase {
  readonly context: vscode.ExtensionContext;
  /** Disposed with the extension. */
  track(d: Disposable): void;
  readonly outputChannel: vscode.LogOutputChannel;
  readonly log: Logger;
  readonly secrets: SecretStore;
  readonly globalState: KeyValueStore;
  readonly workspaceState: KeyValueStore;
  /**
   * The settings as last read: read at first use, not during activation, and again at the first
   * use after gpuRental.* changed.
   */
  readonly settings: Settings;
  /**
   * gpuRental.* changed: the settings are read again at their next use. Says whether apiBaseUrl
   * changed, and its value (unchanged while the connection has not read it yet: it reads the new one).
   */
  reloadSettings(): { apiBaseUrlChanged: boolean; apiBaseUrl: string | undefined };
  readonly conn: ConnectionState;
  readonly connectionChanged: Emitter<ConnectionInfo>;
}

export function createServiceBase(context: vscode.ExtensionContext): ServiceBase {
  const track = (d: Disposable): void => {
    context.subscriptions.push(d);
  };
  const outputChannel = vscode.window.createOutputChannel('GPU Rental', { log: true });
  track(outputChannel);
  const secrets = secretStore(context.secrets, track);
  // The base URL too is read at its first use (the first connection() or request), after activation.
  let apiBaseUrl: { value: string | undefined } | undefined;
  const readUrl = () => (apiBaseUrl = { value: readApiBaseUrl() }).value;
  let settings: Settings | undefined;
  const conn = new ConnectionState({ baseUrl: readUrl, envDemoKey: process.env[DEMO_ENV_KEY] });
  track(conn);
  const log = createRedactingLogger(channelSink(outputChannel), () => conn.knownSecrets());
  const connectionChanged = new Emitter<ConnectionInfo>();
  track(connectionChanged);
  return {
    context,
    track,
    outputChannel,
    log,
    secrets,
    globalState: keyValue(context.globalState),
    workspaceState: keyValue(context.workspaceState),
    get settings() {
      return (settings ??= readSettings());
    },
    reloadSettings: () => {
      settings = undefined;
      if (!apiBaseUrl) return { apiBaseUrlChanged: false, apiBaseUrl: undefined };
      const before = apiBaseUrl.value;
      const now = readUrl();
      return { apiBaseUrlChanged: now !== before, apiBaseUrl: now };
    },
    conn,
    connectionChanged,
  };
}
