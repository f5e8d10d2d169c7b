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
export const NO_PACING_MS: Readonly<PacingMs> = { show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 };
/** Clocks of client and server are not the same clock: stay a little above each threshold. */
const MARGIN_MS = 50;

export interface PacerClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export class Pacer {
  private readonly next = new Map<PacedEndpoint, number>();

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
   * Waits until `e` may be called again, then books this call. Calls of one endpoint are
   * served in order: a second caller books the slot after the first one's.
   */
  async take(e: PacedEndpoint, signal: AbortSignal | undefined): Promise<void> {
    // An endpoint not paced up front still serves a 429's penalty (penalize) before its next call.
    const gap = this.interval(e);
    const now = this.clock.now();
    const at = Math.max(now, this.next.get(e) ?? 0);
    if (gap > 0) this.next.set(e, at + gap);
    if (at > now) await this.clock.sleep(at - now, signal);
  }

  /** After a 429 the next call of `e` waits at least the endpoint's whole threshold from now. */
  penalize(e: PacedEndpoint): void {
    const gap = Math.max(this.interval(e), this.thresholds[e] > 0 ? this.thresholds[e] + MARGIN_MS : 0);
    if (gap > 0) this.next.set(e, Math.max(this.next.get(e) ?? 0, this.clock.now() + gap));
  }
}
