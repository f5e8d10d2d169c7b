// Client-side pacing of the endpoints the live service rate-limits (service-today.md section 9):
// each limit is read as the minimum time between two calls of that endpoint by one key, so the
// pages of a list walk, polls and retries are spaced instead of collecting 429s.

/** The endpoints the service documents thresholds for. */
export type PacedEndpoint = 'show' | 'list' | 'update' | 'destroy' | 'create' | 'search';

/** Milliseconds between two calls of each endpoint. */
export type PacingMs = Record<PacedEndpoint, number>;

/** The service's documented thresholds (seconds) as milliseconds; search is 10 per minute. */
export const SERVICE_THRESHOLDS_MS: Readonly<PacingMs> = { show: 2000, list: 1000, update: 1000, destroy: 3000, create: 4500, search: 6000 };
/**
 * What is paced before sending: the calls that come in runs (the pages of a list walk, status
 * polls). The others are single user actions (searches are debounced by the view): they are
 * not delayed up front, but after a 429 the next call waits the endpoint's whole threshold.
 */
export const SERVICE_PACING_MS: Readonly<PacingMs> = { show: 2000, list: 1000, update: 0, destroy: 0, create: 0, search: 0 };
/**
 * How long a 429 on each endpoint holds it back beyond its threshold: the creation endpoint's
 * penalty (service-today.md section 9: threshold 4.5 s, penalty 12 s). A refused creation waits this out.
 */
export const SERVICE_PENALTY_MS: Readonly<PacingMs> = { show: 0, list: 0, update: 0, destroy: 0, create: 12_000, search: 0 };
/**
 * How long a booting instance's status may stay unchanged before its reads slow down: until then
 * show-instance is read at the service's show threshold, so "running" is seen within one
 * threshold (2 s) of the service reporting it. Any change (state, status text, SSH address)
 * starts the window again, so a long image pull that reports progress is followed closely.
 */
export const STATUS_FAST_WINDOW_MS = 180_000;

/**
 * The wait before the next status read of a booting instance (after a successful read): the
 * show threshold (never faster: the service allows one show every 2 s per key) while the record
 * changed less than STATUS_FAST_WINDOW_MS ago, then half again longer per read up to `slowestMs`
 * (the poll interval setting). A `slowestMs` under the threshold (tests without pacing) is used as is.
 */
export function statusPollDelay(o: { sinceChangeMs: number; lastDelayMs: number; slowestMs: number }): number {
  const fast = Math.min(SERVICE_THRESHOLDS_MS.show, o.slowestMs);
  if (o.sinceChangeMs < STATUS_FAST_WINDOW_MS) return fast;
  return Math.min(o.slowestMs, Math.max(fast, Math.round(o.lastDelayMs * 1.5)));
}
export const NO_PACING_MS: Readonly<PacingMs> = { show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 };
/** The server's clock and ours round differently: stay a little above each threshold. */
const MARGIN_MS = 50;

export interface PacerClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** The error of a call cancelled while it waits for its turn. */
  cancelled(): unknown;
}

/** A call's turn on its endpoint: `done()` once its answer (or failure) is in. */
export interface PacerTurn {
  done(): void;
}

const NO_TURN: PacerTurn = { done: () => undefined };

/**
 * The service counts its interval between the arrivals of two calls. Counting from when ours
 * was sent is not enough: a first request delayed on the way (a lost packet, a slow proxy)
 * arrives close to the next one and earns a 429. Counting from its answer is safe: the server
 * had the first call before it answered, and the next one leaves only after that. So a paced
 * endpoint has one call in flight at a time and the next waits the interval from the answer.
 */
export class Pacer {
  private readonly next = new Map<PacedEndpoint, number>();
  /** Per paced endpoint: settles when the last caller in line has finished its call. */
  private readonly line = new Map<PacedEndpoint, Promise<void>>();

  constructor(
    private readonly intervals: Readonly<PacingMs>,
    private readonly clock: PacerClock,
    /** How long a 429 holds an endpoint back; by default the service's thresholds. */
    private readonly thresholds: Readonly<PacingMs> = SERVICE_THRESHOLDS_MS,
  ) {}

  interval(e: PacedEndpoint): number {
    const ms = this.intervals[e];
    return ms > 0 ? ms + MARGIN_MS : 0;
  }

  /**
   * Waits until `e` may be called, then gives the call its turn. Calls of one paced endpoint
   * are served in order, one at a time: the next starts the interval after this one's `done()`.
   */
  async take(e: PacedEndpoint, signal: AbortSignal | undefined): Promise<PacerTurn> {
    const gap = this.interval(e);
    // An endpoint not paced up front still serves a 429's penalty (penalize) before its next call.
    if (gap === 0) {
      await this.until(e, signal);
      return NO_TURN;
    }
    const before = this.line.get(e) ?? Promise.resolve();
    let finish!: () => void;
    const mine = new Promise<void>((resolve) => (finish = resolve));
    // The one after this caller waits for it, even when this caller gives up while in line.
    this.line.set(
      e,
      before.then(() => mine),
    );
    const release = () => {
      this.next.set(e, Math.max(this.next.get(e) ?? 0, this.clock.now() + gap));
      finish();
    };
    try {
      await abortable(before, signal, () => this.clock.cancelled());
      await this.until(e, signal);
    } catch (err) {
      // Cancelled while in line: pass the turn on once the callers before are through.
      before.then(finish, finish);
      throw err;
    }
    return { done: release };
  }

  /** After a 429 the next call of `e` waits at least the endpoint's whole threshold from now. */
  penalize(e: PacedEndpoint): void {
    const gap = Math.max(this.interval(e), this.thresholds[e] > 0 ? this.thresholds[e] + MARGIN_MS : 0);
    if (gap > 0) this.next.set(e, Math.max(this.next.get(e) ?? 0, this.clock.now() + gap));
  }

  private async until(e: PacedEndpoint, signal: AbortSignal | undefined): Promise<void> {
    const now = this.clock.now();
    const at = this.next.get(e) ?? 0;
    if (at > now) await this.clock.sleep(at - now, signal);
  }
}

/** `p`, or `cancelled()` as soon as the signal is aborted. */
async function abortable(p: Promise<void>, signal: AbortSignal | undefined, cancelled: () => unknown): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) throw cancelled();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort);
  });
  try {
    await Promise.race([p, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
