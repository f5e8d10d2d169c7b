// What every part of the composition root builds on: the disposables of the extension, the log
// channel (redacted), the namespaced secrets and states, the settings as last read, and the
// connection (URL, API key, 2FA session key, demo mode).
import * as vscode from 'vscode';
import type { Logger } from '../api/types';
import { createRedactingLogger } from '../api/redact';
import { Emitter, type Disposable } from '../core/events';
import type { ConnectionInfo, KeyValueStore, SecretStore } from '../core/ports';
import { readSettings, type Settings } from '../core/vscode/settings';
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
  /** The settings as last read (re-read when gpuRental.* changes). */
  settings: Settings;
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
  const settings = readSettings();
  const conn = new ConnectionState({ baseUrl: settings.apiBaseUrl, envDemoKey: process.env[DEMO_ENV_KEY] });
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
    settings,
    conn,
    connectionChanged,
  };
}
