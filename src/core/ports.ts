// The ports the plain-TypeScript layers are written against (secrets, key-value state, the
// connection, the instance list). src/app/vscodeAdapters.ts implements them with VS Code.
import type { Instance, User } from '../api/types';
import type { Event } from './events';

/** A namespaced view of SecretStorage (keys are prefixed `gpuRental.`). */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  store(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  readonly onDidChange: Event<string>;
}

export type ApiKeySaveResult = { ok: true; user: User } | { ok: false; message: string; rejected: boolean };

/**
 * The one way the API key changes (src/account/apiKey.ts): checked with the service first, then
 * stored, then given to the connection. The lint lets nothing else store it or set it on the connection.
 */
export interface ApiKeyPort {
  /** Checks the key with the service; stores it and signs in only when the service accepted it. */
  save(raw: string | undefined): Promise<ApiKeySaveResult>;
  /** Forgets the stored key and signs the connection out of it. */
  clear(): Promise<void>;
}

/** globalState / workspaceState, JSON values. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Promise<void>;
}

export interface ConnectionInfo {
  baseUrl: string;
  signedIn: boolean;
  demo: boolean;
  /** A 2FA session key is in use as the bearer token. */
  session: boolean;
}

/** The instance list the UI shows, refreshed by one poller. */
export interface InstanceStore {
  readonly instances: readonly Instance[];
  get(id: number): Instance | undefined;
  readonly onDidChange: Event<readonly Instance[]>;
  /** Fetch now (coalesced with a request in flight). */
  refresh(): Promise<void>;
  /** Put or replace one record without waiting for the next poll (e.g. right after creation). */
  upsert(instance: Instance): void;
  /** Mark an id as transitional so polling runs at the fast interval until it settles. */
  watch(id: number): void;
  /** Remove a record (after destroy) without waiting for the next poll. */
  remove(id: number): void;
}
