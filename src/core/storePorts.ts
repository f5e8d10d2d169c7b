// The stores every feature reads, as ports: the instance list, the offer search, the credit, the
// instance logs and the gone-instance clean-up. Their classes live in their features
// (instances/, offers/, costs/, logs/); Services names these interfaces, so src/core/vscode/
// imports no feature and a handler's test fakes only the members it uses.
import type { Instance, Offer, OfferQuery, SpendRate, User } from '../api/types';
import type { Disposable, Event } from './events';
import type { ActionGuard } from './actionGuard';
import type { Poller } from './poller';
import type { InstanceStore } from './ports';

export interface StoreError {
  /** What happened and what to do next; never contains a secret. */
  message: string;
  failures: number;
  retryInMs: number;
}

/** The instance list, refreshed by one poller (src/instances/instanceStore.ts). */
export interface InstancesPort extends InstanceStore {
  readonly onDidChangeStatus: Event<void>;
  readonly poller: Poller<Instance[]>;
  /** The actions running per instance (and per rental): one at a time. */
  readonly actions: ActionGuard;
  readonly error: StoreError | undefined;
  readonly loaded: boolean;
  /** Successful list reads since the connection changed. */
  readonly reads: number;
  setPending(id: number, label: string | undefined): void;
  pending(id: number): string | undefined;
}

/** The offer search state: query, results, error (src/offers/offerStore.ts). */
export interface OffersPort {
  readonly onDidChange: Event<void>;
  /** Set by the Offers view: Refresh searches again only while it shows or has results. */
  visible: boolean;
  /** The saved search; undefined for the few microtasks until its checker has loaded. */
  readonly query: OfferQuery | undefined;
  /** The saved search once it can be read. */
  savedQuery(): Promise<OfferQuery>;
  readonly offers: readonly Offer[] | undefined;
  readonly error: string | undefined;
  readonly searching: boolean;
  readonly gpuNames: string[];
  search(query: OfferQuery): Promise<Offer[]>;
  refresh(): Promise<void>;
  refreshIfShown(): Promise<void>;
}

/** The account's $/h now, and where the figure comes from. */
export interface BurnRate {
  perHour: number;
  /** 'service': users/spend-rate (stopped disks and volumes included); 'computed': summed from the instance list (volumes not included). */
  source: 'service' | 'computed';
  service?: SpendRate;
  /** When the service's figure was read (ms since the epoch); a computed rate is as of the instance list. */
  at?: number;
}

/** The account's money as one read: every view shows these figures, and when they were read. */
export interface CreditReading {
  user: User;
  credit: number | undefined;
  /** When the answer arrived (ms since the epoch). */
  at: number;
}

/** The account credit and $/h (src/costs/credit.ts). */
export interface CreditPort {
  readonly onDidChange: Event<void>;
  /** The last read of the account's money, if any. */
  reading(): CreditReading | undefined;
  /** Reads the user record again (unless the last read is younger than maxAgeMs). */
  refresh(o?: { maxAgeMs?: number }): Promise<User>;
  current(instances: readonly Instance[]): number | undefined;
  rate(instances: readonly Instance[]): BurnRate;
}

export interface LogKey {
  instanceId: number;
  /** The host daemon's log instead of the container's. */
  daemon: boolean;
  tail: number;
  filter?: string;
  /** An upload already requested (an instance that failed while starting and was destroyed): fetched, never requested again. */
  resultUrl?: string;
}

export interface LogEntry {
  key: LogKey;
  /** Title of the instance for the header (its label or #id). */
  name: string;
  text?: string;
  error?: string;
  fetchedAt?: Date;
  following: boolean;
  loading: boolean;
}

/** The instance logs Show Logs opened (src/logs/logStore.ts). */
export interface LogsPort {
  readonly onDidChange: Event<LogKey>;
  get(key: LogKey): LogEntry | undefined;
  open(key: LogKey, name: string): LogEntry;
  refresh(key: LogKey, name?: string): Promise<LogEntry>;
  setFollowing(key: LogKey, on: boolean): void;
  following(): LogKey[];
  close(key: LogKey): void;
}

/** Something that keeps records per instance id and drops them when told the instance is gone. */
export interface PerInstanceRecords {
  /** For the log: "SSH options", "guard: don't warn again". */
  readonly name: string;
  /** The instance ids it holds records for now. */
  ids(): readonly number[];
  forget(ids: readonly number[]): Promise<void>;
}

/** Drops every per-instance record once its instance is known to be gone (src/instances/instanceGone.ts). */
export interface InstanceGonePort {
  register(store: PerInstanceRecords): Disposable;
  destroyed(id: number): Promise<void>;
}
