// The offer search state the Offers view shows and Search Offers / Refresh change: the query
// (this workspace's last search), the results, the GPU names seen, and which search is current.
// Plain TypeScript: the view renders it, the commands drive it, neither knows the other.
import type { Offer, OfferQuery, ServiceApi } from '../api/types';
import { describeError } from '../core/describeError';
import { Emitter, type Event } from '../core/events';
import { DEFAULT_OFFER_QUERY } from './offerQueryText';
import type { KeyValueStore } from '../core/ports';
import type { OffersPort } from '../core/storePorts';
import { OFFER_SEARCH_STATE_KEY } from '../core/stateKeys';

export interface OfferStoreDeps {
  api(): Promise<ServiceApi>;
  isSignedIn(): boolean;
  workspaceState: KeyValueStore;
  warn(message: string): void;
  /** Clock (ms) for the refresh debounce; default Date.now. */
  now?(): number;
}

/**
 * The service allows 10 offer searches a minute: a Refresh of the same search within this many
 * ms of the last one that succeeded shows those results again instead of asking (searches debounced).
 */
export const SEARCH_DEBOUNCE_MS = 6000;

export class OfferStore implements OffersPort {
  private results: Offer[] | undefined;
  private lastError: string | undefined;
  /** The query the results (or the error) answer. */
  private shownKey: string | undefined;
  private running: Promise<Offer[]> | undefined;
  private runningKey: string | undefined;
  /** The query and time of the last search that succeeded. */
  private fresh: { key: string; at: number } | undefined;
  private generation = 0;
  private readonly seenGpuNames = new Set<string>();
  private readonly changed = new Emitter<void>();
  /** Results, error, query or "searching" changed. */
  readonly onDidChange: Event<void> = this.changed.event;
  /** Set by the Offers view: Refresh re-runs the search only when someone can see it (or saw results). */
  visible = false;

  /**
   * The query checker (zod and the CLI's grammar: dist/offerQuery.js, kept out of the activation
   * bundle), loaded when the store is made; `null` when it could not load.
   */
  private parser: typeof import('./offerQuery') | null | undefined;
  /** Settles once the saved search can be read (the checker loaded, or failed to). */
  readonly ready: Promise<void>;

  constructor(private readonly deps: OfferStoreDeps) {
    this.ready = import('./offerQuery').then(
      (p) => this.loaded(p),
      (e: unknown) => {
        this.deps.warn(`The saved offer search could not be read: ${describeError(e)}`);
        this.loaded(null);
      },
    );
  }

  private loaded(parser: typeof import('./offerQuery') | null): void {
    this.parser = parser;
    // The view describes the saved search from now on.
    if (this.deps.workspaceState.get<unknown>(OFFER_SEARCH_STATE_KEY) !== undefined) this.changed.fire();
  }

  /**
   * The last search of this workspace (or the defaults); undefined while it cannot be read yet (a
   * saved search and the checker not loaded: a few microtasks after the store is made).
   */
  get query(): OfferQuery | undefined {
    const saved = this.deps.workspaceState.get<unknown>(OFFER_SEARCH_STATE_KEY);
    if (saved === undefined) return { ...DEFAULT_OFFER_QUERY };
    if (this.parser === undefined) return undefined;
    const parsed = this.parser?.parseOfferQuery(saved);
    return parsed?.ok ? parsed.query : { ...DEFAULT_OFFER_QUERY };
  }

  /** The last search of this workspace (or the defaults), once it can be read. */
  async savedQuery(): Promise<OfferQuery> {
    await this.ready;
    return this.query ?? { ...DEFAULT_OFFER_QUERY };
  }

  /**
   * The results of the current query. While a search for another query runs (or waits out a
   * 429) there are none: the previous query's offers under the new query's title misled.
   */
  get offers(): readonly Offer[] | undefined {
    return this.stale ? undefined : this.results;
  }

  get error(): string | undefined {
    return this.stale ? undefined : this.lastError;
  }

  /** A search for another query than the one the results (or error) answer is on its way. */
  private get stale(): boolean {
    return this.running !== undefined && this.runningKey !== this.shownKey;
  }

  get searching(): boolean {
    return this.running !== undefined;
  }

  /** GPU names seen in any result so far (for the model picker). */
  get gpuNames(): string[] {
    return [...this.seenGpuNames].sort((a, b) => a.localeCompare(b));
  }

  /** Runs a search, persists it as this workspace's last search and publishes the result. */
  async search(query: OfferQuery): Promise<Offer[]> {
    const key = JSON.stringify(query);
    // The same search already on its way: wait for it instead of asking twice.
    if (this.running && this.runningKey === key) return this.running;
    const gen = ++this.generation;
    const p = (async () => (await this.deps.api()).searchOffers(query))();
    this.running = p;
    this.runningKey = key;
    this.changed.fire();
    try {
      // VS Code's Memento reads the new value at once; its write may take a while: the view's
      // title names the new query while the search runs, not only once the write is done.
      const saved = this.deps.workspaceState.update(OFFER_SEARCH_STATE_KEY, query);
      if (gen === this.generation) this.changed.fire();
      await saved;
      const offers = await p;
      if (gen === this.generation) {
        this.results = offers;
        this.lastError = undefined;
        this.shownKey = key;
        this.fresh = { key: JSON.stringify(this.query ?? query), at: this.now() }; // as Refresh reads it back
        for (const o of offers) if (o.gpu_name) this.seenGpuNames.add(o.gpu_name);
      }
      return offers;
    } catch (e) {
      if (gen === this.generation) {
        this.lastError = describeError(e);
        this.shownKey = key;
        this.deps.warn(`Offer search failed: ${this.lastError}`);
      }
      throw e;
    } finally {
      if (this.running === p) {
        this.running = undefined;
        this.runningKey = undefined;
      }
      if (gen === this.generation) this.changed.fire();
    }
  }

  /** Re-run the current search; failures show as the error row, not as a rejection. */
  refresh(): Promise<void> {
    if (!this.deps.isSignedIn()) return Promise.resolve();
    const q = this.query;
    if (!q) return this.ready.then(() => this.refresh());
    const f = this.fresh;
    if (f && this.results && !this.lastError && f.key === JSON.stringify(q) && this.now() - f.at < SEARCH_DEBOUNCE_MS) return Promise.resolve();
    return this.search(q).then(
      () => undefined,
      () => undefined,
    );
  }

  /** The Refresh command: only when the view is visible or has results to keep current. */
  refreshIfShown(): Promise<void> {
    return this.visible || this.results ? this.refresh() : Promise.resolve();
  }

  private now(): number {
    return this.deps.now ? this.deps.now() : Date.now();
  }

  /** The connection changed: what was shown belongs to another account (or none). */
  reset(): void {
    this.generation++;
    this.fresh = undefined;
    this.runningKey = undefined;
    this.results = undefined;
    this.lastError = undefined;
    this.shownKey = undefined;
    this.running = undefined;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
