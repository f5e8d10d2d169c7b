// Which pending price increases to tell the user about, and how: an increase is told about once
// and remembered (per server, in the window's state) for as long as it is pending, so a reload
// does not repeat it; a decided one is remembered too. Many new ones in one read are told in one
// notification instead of one each.
import type { KeyValueStore } from '../core/ports';
import type { PendingPriceIncrease } from '../api/types';
import { NOTIFIED_INCREASES_KEY } from '../core/stateKeys';

/** Up to this many new increases get a notification each; more are told in one. */
export const MAX_SEPARATE_NOTICES = 3;
/** Safety bound on the ids remembered per server (far above any account's pending increases). */
const MAX_REMEMBERED = 5000;

export type NoticePlan = { each: PendingPriceIncrease[] } | { group: PendingPriceIncrease[] };

export class IncreaseNotices {
  /** Told about in this window (also before the state's write has landed). */
  private readonly told = new Set<number>();

  constructor(
    private readonly state: KeyValueStore,
    private readonly server: () => string,
  ) {}

  private remembered(): { all: Record<string, number[]>; ids: number[] } {
    const raw = this.state.get<Record<string, unknown>>(NOTIFIED_INCREASES_KEY);
    const all: Record<string, number[]> = {};
    if (raw && typeof raw === 'object' && !Array.isArray(raw))
      for (const [k, v] of Object.entries(raw)) if (Array.isArray(v)) all[k] = v.filter((x): x is number => typeof x === 'number');
    return { all, ids: all[this.server()] ?? [] };
  }

  /**
   * The increases of `rows` (the whole pending list just read) not told about yet, and how to tell
   * them. Every pending one is remembered as told; ids no longer pending are forgotten.
   */
  take(rows: readonly PendingPriceIncrease[]): { plan: NoticePlan | undefined; saved: Promise<void> } {
    const { all, ids } = this.remembered();
    const known = new Set([...ids, ...this.told]);
    const fresh = rows.filter((p) => !known.has(p.pending_price_increase_id));
    const pending = rows.map((p) => p.pending_price_increase_id);
    for (const id of pending) this.told.add(id);
    const keep = [...new Set(pending)].slice(-MAX_REMEMBERED);
    const same = keep.length === ids.length && keep.every((id, i) => ids[i] === id);
    const saved = same ? Promise.resolve() : this.state.update(NOTIFIED_INCREASES_KEY, { ...all, [this.server()]: keep });
    if (!fresh.length) return { plan: undefined, saved };
    return { plan: fresh.length > MAX_SEPARATE_NOTICES ? { group: fresh } : { each: fresh }, saved };
  }

  /** A decided increase: not told about again while the service still lists it. */
  decided(id: number): void {
    this.told.add(id);
  }

  /** A new connection: what this window told is kept per server in the state only. */
  reset(): void {
    this.told.clear();
  }
}
