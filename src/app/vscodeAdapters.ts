// VS Code's storage and output behind the extension's own ports: the log channel as a Logger,
// a Memento as a KeyValueStore, SecretStorage as a namespaced SecretStore.
import type * as vscode from 'vscode';
import type { Logger } from '../api/types';
import { Emitter, type Disposable } from '../core/events';
import type { KeyValueStore, SecretStore } from '../core/ports';

const SECRET_PREFIX = 'gpuRental.';

export function channelSink(ch: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => ch.trace(m),
    debug: (m) => ch.debug(m),
    info: (m) => ch.info(m),
    warn: (m) => ch.warn(m),
    error: (m) => ch.error(m),
  };
}

export function keyValue(m: vscode.Memento): KeyValueStore {
  return {
    get: <T>(key: string) => m.get<T>(key),
    update: (key, value) => Promise.resolve(m.update(key, value)),
  };
}

export function secretStore(secrets: vscode.SecretStorage, track: (d: Disposable) => void): SecretStore {
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
