// The one owner of the visibility rule (docs/guarantees.md): for a rental in flight or a known
// instance, what the reads so far say it is (visible, not visible yet, not found, gone) with
// the proof used, and what to do next. The create flow, its resume after a restart, the
// instance store, the per-instance records (instanceGone.ts) and entry sync all decide here.
//
// The rules:
// - a read that says "not found" is never proof that a machine is gone. Within the first
//   minute after its creation it is "not visible yet" (the service shows new instances late);
// - after that minute only the instance list settles anything, asked by id and by the unique
//   label the creation carried, GONE_CONFIRMATIONS successful reads in a row without either;
// - a creation the list has NEVER shown is, after those reads, "not found"; one it has shown
//   before and then leaves out of two reads in a row is "gone" (destroyed elsewhere, or a
//   replica that lags or flaps). Neither proves what happened: the rental is never forgotten and
//   never replaced by a second rental on its own: the user decides (interactive), or the rental
//   is reported as unknown and watched until it appears (scripted). Only a refusal listed in
//   src/api/rentAgain.ts proves that nothing was created;
// - a read that failed (429, 5xx, timeout, unreadable) proves nothing either way.
import { isApiError } from './errors';
import type { Instance } from './types';

/** The window in which a 404/null for a new instance means "not visible yet", not "gone". */
export const NOT_VISIBLE_WINDOW_MS = 60_000;
/** Successful list reads in a row without the instance (by id and label) that settle its absence. */
export const GONE_CONFIRMATIONS = 2;

/** A read answering that the instance does not exist (404/400, or the client's "not visible yet"). */
export function saysNotFound(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.kind === 'not_visible_yet') return true;
  if (e.kind !== 'http') return false;
  return e.status === 404 || e.status === 400 || e.code === 'no_such_instance';
}

/** What the reads so far prove, and what to do next. */
export type Visibility =
  | { state: 'visible'; instance: Instance; next: 'track' }
  /** Not found, within the first minute: ask show again later. */
  | { state: 'not-visible-yet'; next: 'poll' }
  /** Not found after the first minute: ask the list (by id and label) before concluding anything. */
  | { state: 'unconfirmed'; listReads: number; next: 'ask-list' }
  /** Reads failed: nothing is settled; back off and ask again. */
  | { state: 'unknown'; next: 'backoff' }
  /**
   * A creation the list never showed, absent from `listReads` reads over `sinceMs`: its fate is
   * unknown. Never rent again on this alone: ask the user, or report it unknown and keep watching.
   */
  | { state: 'not-found'; proof: AbsenceProof; next: 'ask-user' }
  /**
   * The list showed it before and now leaves it out of `listReads` reads in a row: destroyed
   * elsewhere, or a lagging or flapping replica. Not proof either: ask the user, or report it
   * unknown and keep watching.
   */
  | { state: 'gone'; proof: AbsenceProof; next: 'ask-user' };

export interface AbsenceProof {
  listReads: number;
  /** Milliseconds since the creation was sent (or the watch began). */
  sinceMs: number;
  /** Whether any read ever showed the instance. */
  seenBefore: boolean;
}

/**
 * The visibility of one rental in flight (or one instance being polled), fed with each read.
 * Pure: the caller does the reads and the waiting, with whatever clock it has.
 */
export class VisibilityWatch {
  private absent = 0;
  private seen: boolean;

  constructor(
    /** When the creation was sent (same clock as the `now` values passed in). */
    private readonly since: number,
    opts: { seenBefore?: boolean } = {},
  ) {
    this.seen = opts.seenBefore === true;
  }

  get seenBefore(): boolean {
    return this.seen;
  }

  /** show-instance (or the list) answered with the instance. */
  shown(instance: Instance): Visibility {
    this.seen = true;
    this.absent = 0;
    return { state: 'visible', instance, next: 'track' };
  }

  /** show-instance said "not found" at `now`. */
  notFound(now: number): Visibility {
    if (now - this.since < NOT_VISIBLE_WINDOW_MS) return { state: 'not-visible-yet', next: 'poll' };
    return { state: 'unconfirmed', listReads: this.absent, next: 'ask-list' };
  }

  /** A read failed (429, 5xx, timeout, unreadable): it proves nothing. */
  unreadable(): Visibility {
    return { state: 'unknown', next: 'backoff' };
  }

  /** A successful list read by id and by label, at `now`: `found` is the row it showed, if any. */
  listRead(now: number, found: Instance | undefined): Visibility {
    if (found) return this.shown(found);
    this.absent++;
    if (this.absent < GONE_CONFIRMATIONS || now - this.since < NOT_VISIBLE_WINDOW_MS) return { state: 'unconfirmed', listReads: this.absent, next: 'ask-list' };
    const proof: AbsenceProof = { listReads: this.absent, sinceMs: now - this.since, seenBefore: this.seen };
    return this.seen ? { state: 'gone', proof, next: 'ask-user' } : { state: 'not-found', proof, next: 'ask-user' };
  }
}

/**
 * The instance store's rule for a row the newest list walk left out: keep it unless the walk
 * before left it out too, and never drop a row created here that the list has not shown yet
 * while its creation is in flight or within the first minute.
 */
export function keepUnlisted(r: { misses: number; putAtMs: number | undefined; nowMs: number; inFlight: boolean }): boolean {
  if (r.inFlight) return true;
  if (r.putAtMs !== undefined && r.nowMs - r.putAtMs < NOT_VISIBLE_WINDOW_MS) return true;
  return r.misses < GONE_CONFIRMATIONS;
}

/**
 * What list reads prove about known instances that are not in them: one read that leaves an
 * instance out is not proof that it is gone (lists answer late, pages shift, a replica lags);
 * GONE_CONFIRMATIONS successful reads in a row that all leave it out are. Entry sync and the
 * per-instance records judge by this one rule.
 */
export class AbsenceRule {
  private missed = new Map<number, number>();

  /**
   * One successful read left `missing` out (ids that something still holds a record for): the
   * ids now confirmed gone. An id listed again starts over.
   */
  read(missing: Iterable<number>): number[] {
    const next = new Map<number, number>();
    const gone: number[] = [];
    for (const id of new Set(missing)) {
      const n = (this.missed.get(id) ?? 0) + 1;
      next.set(id, n);
      if (n >= GONE_CONFIRMATIONS) gone.push(id);
    }
    this.missed = next;
    return gone;
  }

  /** The reads seen so far prove nothing any more (another connection or account, signed out). */
  reset(): void {
    this.missed.clear();
  }
}
