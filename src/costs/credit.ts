// The one read of the account's money every view shows (the Account view, the status bar and its
// tooltip, the low-credit warning, the budget): the user record (credit, name), fetched at most
// every 5 minutes, at once on Refresh Account, and sooner when an instance record's
// credit_balance says the balance moved; and the burn rate, the service's own figure
// (GET /api/v0/users/spend-rate: stopped disks and volumes included) where it answers, fetched
// with it, at most once a minute and again when an instance starts, stops or goes, else computed
// from the list. Each view says when the figures were read ("as of 15:42"). Answers are dropped
// when the connection changed while they were in flight.
import type { Instance, ServiceApi, SpendRate, User } from '../api/types';
import { Emitter, type Event } from '../core/events';
import type { BurnRate, CreditPort, CreditReading } from '../core/storePorts';
import { formatRate } from '../core/rates';
import { summarizeCosts } from './costs';
import * as l10n from '@vscode/l10n';

export const USER_CREDIT_REFRESH_MS = 5 * 60_000;
export const SPEND_RATE_REFRESH_MS = 60_000;
/** An instance record's credit_balance that differs from the last read asks again, at most this often. */
export const CREDIT_HINT_MIN_MS = 60_000;

export interface CreditStoreDeps {
  api(): Promise<ServiceApi>;
  /** Changes with every sign-in, sign-out or switch (an answer from before is stale). */
  generation(): number;
  now?: () => number;
}

/** Where the total comes from, for the tooltip. */
export function rateSourceText(r: BurnRate): string {
  if (r.source === 'computed')
    return l10n.t('computed from the instance list: compute of running instances and the disks of stopped ones; volumes not included');
  const v = r.service?.volumeStoragePerHour ?? 0;
  return v > 0
    ? l10n.t("the service's own figure, stopped disks and volumes ({0}) included", formatRate(v))
    : l10n.t("the service's own figure, stopped disks and volumes included");
}

export class CreditStore implements CreditPort {
  private last: CreditReading | undefined;
  private fetchedAt = -Infinity;
  private inFlight: Promise<User> | undefined;
  private readonly changed = new Emitter<void>();
  /** A new read arrived (credit, user or rate). */
  readonly onDidChange: Event<void> = this.changed.event;

  constructor(private readonly deps: CreditStoreDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The last read of the account's money, or undefined before the first answer. */
  reading(): CreditReading | undefined {
    return this.last;
  }

  /**
   * The credit every view shows: the last read's. The instance records' credit_balance is only a
   * hint that the balance moved (then the user record is read again, at most once a minute), so
   * the status bar never shows a figure the Account view does not. May start a background read.
   */
  current(instances: readonly Instance[]): number | undefined {
    const hint = instances.find((i) => typeof i.credit_balance === 'number')?.credit_balance;
    const age = this.now() - this.fetchedAt;
    const moved = typeof hint === 'number' && this.last?.credit !== undefined && Math.abs(hint - this.last.credit) >= 0.005;
    if (!this.inFlight && (age > USER_CREDIT_REFRESH_MS || (moved && age > CREDIT_HINT_MIN_MS))) this.readUser().catch(() => undefined); // the credit stays as last read
    return this.last?.credit;
  }

  /**
   * Reads the account now (Refresh Account, the Account view): the user record and the burn rate,
   * one read every view then shows. A read in flight, or one answered within `maxAgeMs`, is used
   * instead of asking again. Rejects when the user record cannot be read.
   */
  async refresh(o: { maxAgeMs?: number } = {}): Promise<User> {
    if (!this.inFlight && this.last && o.maxAgeMs !== undefined && this.now() - this.last.at <= o.maxAgeMs) return this.last.user;
    if (this.spendKnown && !this.spendFetching) this.fetchSpend().catch(() => undefined); // fetchSpend() ends every failure itself
    return this.readUser();
  }

  private readUser(): Promise<User> {
    if (this.inFlight) return this.inFlight;
    const p = (async () => {
      // An answer for a connection that changed meanwhile is dropped, and the new one is asked (twice at most).
      for (let tries = 1; ; tries++) {
        const gen = this.deps.generation();
        let u: User;
        try {
          u = await (await this.deps.api()).currentUser();
        } catch (e) {
          if (gen === this.deps.generation()) this.fetchedAt = this.now();
          throw e;
        }
        if (gen === this.deps.generation()) {
          this.fetchedAt = this.now();
          this.last = { user: u, credit: typeof u.credit === 'number' ? u.credit : undefined, at: this.now() };
          this.changed.fire();
          return u;
        }
        if (tries >= 2) throw new Error(l10n.t('The connection changed while the account was read. Choose Refresh to read it again.'));
      }
    })();
    this.inFlight = p;
    // A reset meanwhile started another read: leave that one in place.
    p.finally(() => this.inFlight === p && (this.inFlight = undefined)).catch(() => undefined);
    return p;
  }

  /** One read for this connection: its answer (or failure) is dropped when the connection changed meanwhile. */
  private async ask<T>(call: (api: ServiceApi) => Promise<T>, answered: (r: T) => void, failed: () => void): Promise<void> {
    const gen = this.deps.generation();
    let r: T;
    try {
      r = await call(await this.deps.api());
    } catch {
      if (gen === this.deps.generation()) failed();
      return;
    }
    if (gen === this.deps.generation()) answered(r);
  }

  private spend: SpendRate | undefined;
  /** False once the service answered that it has no spend-rate (asked again only after a reset). */
  private spendKnown = true;
  private spendAt = -Infinity;
  private spendFetching = false;
  private spendSig = '';

  /** The account's burn rate for these instances; may start a background fetch of the service's figure. */
  rate(instances: readonly Instance[]): BurnRate {
    // A start, stop or destroy changes the rate at once: ask again then, not a minute later.
    const sig = instances.map((i) => `${i.id}:${i.state}`).join(',');
    const due = sig !== this.spendSig || this.now() - this.spendAt > SPEND_RATE_REFRESH_MS;
    if (this.spendKnown && !this.spendFetching && due) {
      this.spendSig = sig;
      this.fetchSpend().catch(() => undefined); // fetchSpend() ends every failure itself (the rate is computed meanwhile)
    }
    if (this.spend) return { perHour: this.spend.totalPerHour, source: 'service', service: this.spend, at: this.spendAt };
    return { perHour: summarizeCosts(instances, undefined).totalPerHour, source: 'computed' };
  }

  private async fetchSpend(): Promise<void> {
    this.spendFetching = true;
    await this.ask(
      (api) => api.spendRate(),
      (r) => {
        this.spendAt = this.now();
        if (!r) this.spendKnown = false;
        const was = this.spend?.totalPerHour;
        this.spend = r;
        if (r?.totalPerHour !== was) this.changed.fire();
      },
      // A failed read keeps the last figure for now, and is tried again in a minute.
      () => (this.spendAt = this.now()),
    ).finally(() => (this.spendFetching = false));
  }

  /** The connection changed: the credit and the rate belong to another account (or none). */
  reset(): void {
    this.last = undefined;
    this.inFlight = undefined;
    this.fetchedAt = -Infinity;
    this.spend = undefined;
    this.spendKnown = true;
    this.spendAt = -Infinity;
    this.spendSig = '';
  }

  dispose(): void {
    this.changed.dispose();
  }
}
