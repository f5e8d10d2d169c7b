// One timer for the whole instance list. Plain TypeScript with injectable timers so the
// interval rules are unit-tested with a fake clock.

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    (h as { unref?: () => void }).unref?.();
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export interface PollerConfig {
  /** While anything is transitional or the view is visible. */
  intervalMs: number;
  /** Steady and hidden (the status bar still needs fresh costs). */
  hiddenIntervalMs: number;
  /** Stop polling after the window has been unfocused this long. */
  idlePauseMs: number;
  /** Cap of the exponential backoff after errors. */
  maxBackoffMs: number;
  /** While something the user waits for is on its way (isUrgent): a machine starting. */
  urgentIntervalMs?: number;
}

/** The urgent interval unless the config says otherwise: the list's 1 s threshold, doubled (a walk of many pages takes longer anyway). */
export const URGENT_INTERVAL_MS = 2000;

export const DEFAULT_POLLER_CONFIG: PollerConfig = {
  intervalMs: 10_000,
  hiddenIntervalMs: 60_000,
  idlePauseMs: 5 * 60_000,
  maxBackoffMs: 5 * 60_000,
};

export interface PollerDeps<T> {
  /** One list request. */
  fetch(): Promise<T>;
  /** A result that still belongs to the current connection. */
  onResult(result: T): void;
  /** A failure that still belongs to the current connection; `retryInMs` is the backoff. */
  onError(error: unknown, failures: number, retryInMs: number): void;
  isSignedIn(): boolean;
  /** Changes whenever the credentials or URL change; results from older generations are dropped. */
  generation(): number;
  isTransitional(): boolean;
  /** Something the user waits for is on its way (a started machine: its SSH entry follows the list). */
  isUrgent?(): boolean;
  config(): PollerConfig;
  timers?: Timers;
  random?: () => number;
}

export class Poller<T> {
  private readonly timers: Timers;
  private readonly random: () => number;
  private timer: unknown;
  private inFlight: Promise<void> | undefined;
  private inFlightGen = -1;
  private failures = 0;
  private currentBackoff = 0;
  private visible = false;
  private focused = true;
  private unfocusedSince = 0;
  private disposed = false;
  private started = false;
  /** When the next poll is due (for tests and diagnostics); undefined when none is scheduled. */
  nextDueAt: number | undefined;

  constructor(private readonly deps: PollerDeps<T>) {
    this.timers = deps.timers ?? realTimers;
    this.random = deps.random ?? Math.random;
  }

  /** Begin polling (an immediate fetch when signed in). */
  start(): void {
    this.started = true;
    this.refreshInBackground();
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    // Becoming visible with a long hidden interval pending: refresh now.
    if (visible) this.refreshInBackground();
    else this.reschedule();
  }

  setFocused(focused: boolean): void {
    if (focused === this.focused) return;
    const wasPaused = !this.focused && this.timers.now() - this.unfocusedSince >= this.deps.config().idlePauseMs;
    this.focused = focused;
    if (!focused) {
      this.unfocusedSince = this.timers.now();
      return;
    }
    if (wasPaused || this.nextDueAt === undefined) this.refreshInBackground();
  }

  /** Credentials or URL changed: fetch at once for the new connection (or stop when signed out). */
  connectionChanged(): void {
    this.failures = 0;
    this.clear();
    if (this.deps.isSignedIn()) this.refreshInBackground();
  }

  /** Something became transitional (an action ran): make sure the fast interval applies. */
  nudge(): void {
    if (this.inFlight) return;
    const fast = this.delay();
    if (fast === undefined) return;
    if (this.nextDueAt === undefined || this.nextDueAt - this.timers.now() > fast) this.schedule(fast);
  }

  /** refresh() nobody waits for: a fetch failure is already onError's; anything else thrown goes there too. */
  private refreshInBackground(): void {
    this.refresh().catch((e: unknown) => this.deps.onError(e, this.failures, this.currentBackoff));
  }

  /** Fetch now; joins the request in flight when it belongs to the current connection. */
  refresh(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (!this.deps.isSignedIn()) {
      this.clear();
      return Promise.resolve();
    }
    const gen = this.deps.generation();
    if (this.inFlight) {
      if (this.inFlightGen === gen) return this.inFlight;
      // A request of an older connection is still out: wait for it, then fetch (one in flight).
      return this.inFlight.then(() => this.refresh());
    }
    this.clear();
    this.inFlightGen = gen;
    const p = this.run(gen).finally(() => {
      if (this.inFlight === p) this.inFlight = undefined;
      if (!this.disposed && this.deps.generation() === gen) this.reschedule();
    });
    this.inFlight = p;
    return p;
  }

  private async run(gen: number): Promise<void> {
    let result: T;
    try {
      result = await this.deps.fetch();
    } catch (e) {
      if (this.deps.generation() !== gen || this.disposed) return;
      this.failures++;
      this.currentBackoff = this.backoff();
      this.deps.onError(e, this.failures, this.currentBackoff);
      return;
    }
    if (this.deps.generation() !== gen || this.disposed) return;
    this.failures = 0;
    this.deps.onResult(result);
  }

  private backoff(): number {
    const c = this.deps.config();
    const base = Math.min(c.maxBackoffMs, c.intervalMs * 2 ** Math.min(this.failures - 1, 20));
    // Jitter of up to +20% spreads windows that failed together.
    return Math.round(Math.min(c.maxBackoffMs, base * (1 + 0.2 * this.random())));
  }

  /** The delay until the next poll, or undefined when no poll should be scheduled. */
  private delay(): number | undefined {
    if (this.disposed || !this.started || !this.deps.isSignedIn()) return undefined;
    const c = this.deps.config();
    if (!this.focused && this.timers.now() - this.unfocusedSince >= c.idlePauseMs) return undefined;
    if (this.failures > 0) return this.currentBackoff;
    const base = this.visible || this.deps.isTransitional() ? c.intervalMs : c.hiddenIntervalMs;
    return this.deps.isUrgent?.() ? Math.min(base, c.urgentIntervalMs ?? URGENT_INTERVAL_MS) : base;
  }

  private reschedule(): void {
    if (this.inFlight) return;
    const d = this.delay();
    if (d === undefined) this.clear();
    else this.schedule(d);
  }

  private schedule(ms: number): void {
    this.clear();
    this.nextDueAt = this.timers.now() + ms;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.nextDueAt = undefined;
      // Unfocused for long: stay quiet until focus returns.
      if (this.delay() === undefined) return;
      this.refreshInBackground();
    }, ms);
  }

  private clear(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.nextDueAt = undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.clear();
  }
}
