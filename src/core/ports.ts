// The ports the plain-TypeScript layers are written against (secrets, key-value state, the
// connection, the instance list). src/app/vscodeAdapters.ts implements them with VS Code.
import type { Instance } from '../api/types';
import type { Event } from './events';

/** A namespaced view of SecretStorage (keys are prefixed `gpuRental.`). */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  store(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  readonly onDidChange: Event<string>;
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
