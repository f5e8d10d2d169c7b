// The instance list every view shows, refreshed by one Poller (one list request per
// interval for all instances, never one per instance).
import type { Instance, InstanceState, ServiceApi } from '../api/types';
import { Emitter } from '../core/events';
import type { InstancesPort, StoreError } from '../core/storePorts';
import { Poller, realTimers, type PollerConfig, type Timers } from '../core/poller';
import { keepUnlisted } from '../api/visibility';
import { ActionGuard } from '../core/actionGuard';

const TRANSITIONAL: ReadonlySet<InstanceState> = new Set(['provisioning', 'loading', 'rebooting']);
const SETTLED: ReadonlySet<InstanceState> = new Set(['running', 'stopped', 'exited', 'unknown', 'offline', 'frozen']);

/** True while an instance is on its way somewhere (poll fast until it arrives). */
export function isTransitional(i: Instance): boolean {
  if (TRANSITIONAL.has(i.state)) return true;
  const intended = i.intended_status ?? undefined;
  if (intended === 'running' && i.state === 'stopped') return true;
  if (intended === 'stopped' && (i.state === 'running' || i.state === 'loading')) return true;
  return false;
}

export interface PolledInstanceStoreDeps {
  api(): Promise<ServiceApi>;
  isSignedIn(): boolean;
  generation(): number;
  config(): PollerConfig;
  describeError(e: unknown): string;
  timers?: Timers;
  random?: () => number;
  /** Ids of rentals in flight (globalState): their rows stay until the list shows them or the user decides. */
  inFlight?(): readonly number[];
}

export class PolledInstanceStore implements InstancesPort {
  private list: Instance[] = [];
  private readonly byId = new Map<number, Instance>();
  private readonly watched = new Set<number>();
  /** Watched ids an action is starting (see anyStarting). */
  private readonly starting = new Set<number>();
  private readonly pendingLabels = new Map<number, string>();
  private lastError: StoreError | undefined;
  /** Consecutive walks that did not list an id still shown. */
  private readonly missed = new Map<number, number>();
  /** When a record was put here before the list showed it (ms). */
  private readonly putAt = new Map<number, number>();
  private loadedOnce = false;
  private readCount = 0;
  private readonly changed = new Emitter<readonly Instance[]>();
  private readonly statusChanged = new Emitter<void>();
  readonly onDidChange = this.changed.event;
  /** Error row, first load, or "Stopping…" labels changed. */
  readonly onDidChangeStatus = this.statusChanged.event;
  readonly poller: Poller<Instance[]>;
  /** The actions running per instance (and per rental): one at a time, whichever bundle runs it. */
  readonly actions = new ActionGuard();

  constructor(private readonly deps: PolledInstanceStoreDeps) {
    this.poller = new Poller<Instance[]>({
      fetch: async () => (await (await deps.api()).listInstances()).instances,
      onResult: (list) => this.setAll(list),
      onError: (e, failures, retryInMs) => {
        this.lastError = { message: deps.describeError(e), failures, retryInMs };
        this.statusChanged.fire();
      },
      isSignedIn: deps.isSignedIn,
      generation: deps.generation,
      isTransitional: () => this.anyTransitional(),
      isUrgent: () => this.anyStarting(),
      config: deps.config,
      timers: deps.timers,
      random: deps.random,
    });
  }

  get instances(): readonly Instance[] {
    return this.list;
  }
  get error(): StoreError | undefined {
    return this.lastError;
  }
  /** True once a list has arrived for the current connection. */
  get loaded(): boolean {
    return this.loadedOnce;
  }

  /** Successful list reads since the connection changed (an upsert or a remove is not one). */
  get reads(): number {
    return this.readCount;
  }

  get(id: number): Instance | undefined {
    return this.byId.get(id);
  }

  refresh(): Promise<void> {
    return this.poller.refresh();
  }

  upsert(instance: Instance): void {
    const idx = this.list.findIndex((i) => i.id === instance.id);
    // A record put here before any list showed it (a creation): the service lists it late.
    if (idx < 0) this.putAt.set(instance.id, this.now());
    const next = [...this.list];
    if (idx >= 0) next[idx] = instance;
    else next.push(instance);
    this.apply(next);
  }

  watch(id: number): void {
    const shown = this.byId.get(id);
    if (shown && shown.state !== 'running' && !TRANSITIONAL.has(shown.state)) this.starting.add(id);
    this.watched.add(id);
    this.poller.nudge();
  }

  remove(id: number): void {
    this.missed.delete(id);
    this.putAt.delete(id);
    this.watched.delete(id);
    this.starting.delete(id);
    this.pendingLabels.delete(id);
    if (!this.byId.has(id)) return;
    this.apply(this.list.filter((i) => i.id !== id));
  }

  /** "Stopping…" while an action runs; undefined clears it. */
  setPending(id: number, label: string | undefined): void {
    if (label) this.pendingLabels.set(id, label);
    else this.pendingLabels.delete(id);
    this.statusChanged.fire();
  }
  pending(id: number): string | undefined {
    return this.pendingLabels.get(id);
  }

  /** The connection changed: forget everything of the old one and fetch anew. */
  reset(): void {
    this.list = [];
    this.byId.clear();
    this.missed.clear();
    this.putAt.clear();
    this.watched.clear();
    this.starting.clear();
    this.pendingLabels.clear();
    this.lastError = undefined;
    this.loadedOnce = false;
    this.readCount = 0;
    this.changed.fire(this.list);
    this.statusChanged.fire();
    this.poller.connectionChanged();
  }

  /**
   * Now, on the store's timers' clock.
   */
  private now(): number {
    return (this.deps.timers ?? realTimers).now();
  }

  /**
   * A new walk of the list. Whether a row it lacks stays is the visibility rule's
   * (src/api/visibility.ts keepUnlisted): a page boundary or a late read is not proof it is gone,
   * and a rental in flight stays until the list shows it.
   */
  private setAll(list: Instance[]): void {
    const hadError = this.lastError !== undefined || !this.loadedOnce;
    this.lastError = undefined;
    this.loadedOnce = true;
    this.readCount++;
    const seen = new Set(list.map((i) => i.id));
    const kept: Instance[] = [];
    const now = this.now();
    const flying = new Set(this.deps.inFlight?.() ?? []);
    for (const old of this.list) {
      if (seen.has(old.id)) continue;
      const misses = (this.missed.get(old.id) ?? 0) + 1;
      if (keepUnlisted({ misses, putAtMs: this.putAt.get(old.id), nowMs: now, inFlight: flying.has(old.id) })) {
        this.missed.set(old.id, misses);
        kept.push(old);
      } else {
        this.missed.delete(old.id);
        this.putAt.delete(old.id);
      }
    }
    for (const id of seen) {
      this.missed.delete(id);
      this.putAt.delete(id);
    }
    this.apply(kept.length ? [...list, ...kept] : list);
    if (hadError) this.statusChanged.fire();
  }

  private apply(list: Instance[]): void {
    const sorted = [...list].sort((a, b) => a.id - b.id);
    this.list = sorted;
    this.byId.clear();
    for (const i of sorted) this.byId.set(i.id, i);
    for (const id of [...this.watched]) {
      const i = this.byId.get(id);
      if (!i || (SETTLED.has(i.state) && !isTransitional(i))) this.watched.delete(id);
    }
    this.changed.fire(sorted);
  }

  /**
   * A machine an action started (watched while the list showed it stopped; a rental in the create
   * flow has its own status reads) that is not running yet: the list is read every 2 s
   * until it runs, so its SSH entry (which follows the list) does not wait for the 10 s interval.
   */
  private anyStarting(): boolean {
    for (const id of this.starting) {
      const i = this.byId.get(id);
      if (this.watched.has(id) && i && i.state !== 'running' && (i.intended_status ?? 'running') === 'running') return true;
      if (!this.watched.has(id) || i?.state === 'running') this.starting.delete(id);
    }
    return false;
  }

  private anyTransitional(): boolean {
    return this.watched.size > 0 || this.list.some(isTransitional);
  }

  dispose(): void {
    this.poller.dispose();
    this.changed.dispose();
    this.statusChanged.dispose();
  }
}
