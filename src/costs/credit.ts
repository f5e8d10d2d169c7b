// The account credit the status bar and the low-credit warning show: from the instance records
// when they carry it (no extra request), else the user record, fetched at most every 5 minutes
// and dropped when the connection changed while it was in flight.
import type { Instance, ServiceApi } from '../api/types';
import { Emitter, type Event } from '../core/events';

export const USER_CREDIT_REFRESH_MS = 5 * 60_000;

export interface CreditStoreDeps {
  api(): Promise<ServiceApi>;
  /** Changes with every sign-in, sign-out or switch (an answer from before is stale). */
  generation(): number;
  now?: () => number;
}

export class CreditStore {
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
    const gen = this.deps.generation();
    try {
      const u = await (await this.deps.api()).currentUser();
      if (gen !== this.deps.generation()) return;
      this.userCredit = typeof u.credit === 'number' ? u.credit : undefined;
      this.fetchedAt = this.now();
      this.changed.fire();
    } catch {
      if (gen === this.deps.generation()) this.fetchedAt = this.now();
    } finally {
      this.fetching = false;
    }
  }

  /** The connection changed: the credit belongs to another account (or none). */
  reset(): void {
    this.userCredit = undefined;
    this.fetchedAt = -Infinity;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
