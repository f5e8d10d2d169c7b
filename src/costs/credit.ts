// The account money the status bar, the low-credit warning and the budget projection show: the
// credit, from the instance records when they carry it (no extra request), else the user record,
// fetched at most every 5 minutes; and the burn rate, the service's own figure
// (GET /api/v0/users/spend-rate: stopped disks and volumes included) where it answers, fetched
// at most once a minute and again when an instance starts, stops or goes, else computed from
// the list. Answers are dropped when the connection changed while they were in flight.
import type { Instance, ServiceApi, SpendRate } from '../api/types';
import { Emitter, type Event } from '../core/events';
import type { BurnRate, CreditPort } from '../core/storePorts';
import { formatRate } from '../core/rates';
import { summarizeCosts } from './costs';

export const USER_CREDIT_REFRESH_MS = 5 * 60_000;
export const SPEND_RATE_REFRESH_MS = 60_000;

export interface CreditStoreDeps {
  api(): Promise<ServiceApi>;
  /** Changes with every sign-in, sign-out or switch (an answer from before is stale). */
  generation(): number;
  now?: () => number;
}

/** Where the total comes from, for the tooltip. */
export function rateSourceText(r: BurnRate): string {
  if (r.source === 'computed') return 'computed from the instance list: compute of running instances and the disks of stopped ones; volumes not included';
  const v = r.service?.volumeStoragePerHour ?? 0;
  return `the service's own figure, stopped disks${v > 0 ? ` and volumes (${formatRate(v)})` : ' and volumes'} included`;
}

export class CreditStore implements CreditPort {
  private userCredit: number | undefined;
  private fetchedAt = -Infinity;
  private fetching = false;
  private readonly changed = new Emitter<void>();
  /** A fetched user credit arrived. */
  readonly onDidChange: Event<void> = this.changed.event;

  constructor(private readonly deps: CreditStoreDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The credit for these instances; may start a background fetch of the user record. */
  current(instances: readonly Instance[]): number | undefined {
    const fromInstance = instances.find((i) => typeof i.credit_balance === 'number')?.credit_balance;
    if (typeof fromInstance === 'number') return fromInstance;
    if (!this.fetching && this.now() - this.fetchedAt > USER_CREDIT_REFRESH_MS) this.fetch().catch(() => undefined); // fetch() ends every failure itself (the credit stays unknown);
    return this.userCredit;
  }

  private async fetch(): Promise<void> {
    this.fetching = true;
    await this.ask(
      (api) => api.currentUser(),
      (u) => {
        this.userCredit = typeof u.credit === 'number' ? u.credit : undefined;
        this.fetchedAt = this.now();
        this.changed.fire();
      },
      () => (this.fetchedAt = this.now()),
    ).finally(() => (this.fetching = false));
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
    if (this.spend) return { perHour: this.spend.totalPerHour, source: 'service', service: this.spend };
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
    this.userCredit = undefined;
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
