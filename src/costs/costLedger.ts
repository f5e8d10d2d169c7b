// Money already spent: the rate history seen per instance, cost so far and spent today. Its own
// lazily loaded bundle (dist/costLedger.js, loaded with the first instance list): views read
// finished sentences through Services.costs and never import it.
import type { Instance } from '../api/types';
import { currentRate, formatMoney, type GroupCost } from '../core/rates';
import * as l10n from '@vscode/l10n';

function num(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** What an instance has cost so far. */
export interface CostSoFar {
  amount: number;
  /** False when the service reported the figure; true when computed from the rates seen. */
  estimate: boolean;
  /** For an estimate: the time (ms) from which the rates were seen; earlier spending is not included. */
  since?: number;
}

interface Sample {
  /** ms */
  at: number;
  /** $/h from this sample until the next one. */
  rate: number;
  /** The service's own running total at this moment, when the instance carries one. */
  total?: number;
}

interface Track {
  samples: Sample[];
  /** seconds since the epoch, from the instance's start_date. */
  startedAt?: number;
  /** ms: when the instance left the list (destroyed); nothing is billed after it. */
  endedAt?: number;
}

/** The service's accumulated cost of an instance, when its record carries one. */
export function serviceTotal(i: Instance): number | undefined {
  return num(i.total_cost);
}

/**
 * The rate history the extension has seen, per instance, so it can say what an instance has
 * cost so far and what was spent today. Each rate holds from the poll that saw it until the
 * next one (a stop or a new price is noticed at the next poll), which is why such figures
 * are labelled estimates; the service's own running total wins wherever an instance has one.
 */
export class CostLedger {
  private readonly tracks = new Map<number, Track>();

  /** Records one poll: every instance listed, at `now` (ms). Instances missing from it have ended. */
  observe(instances: readonly Instance[], now: number): void {
    const seen = new Set<number>();
    for (const i of instances) {
      seen.add(i.id);
      let t = this.tracks.get(i.id);
      if (!t) this.tracks.set(i.id, (t = { samples: [] }));
      t.endedAt = undefined;
      const start = num(i.start_date);
      if (start !== undefined && start > 0) t.startedAt = start;
      const rate = currentRate(i);
      const total = serviceTotal(i);
      const last = t.samples[t.samples.length - 1];
      if (last && now < last.at) continue; // an older answer arriving late
      // Same rate, no service total: the history does not change (keeps it short).
      if (last && last.rate === rate && total === undefined && last.total === undefined) continue;
      t.samples.push({ at: now, rate, ...(total !== undefined ? { total } : {}) });
    }
    for (const [id, t] of this.tracks) if (!seen.has(id) && t.endedAt === undefined) t.endedAt = now;
  }

  /** Forgets everything (another account or service). */
  clear(): void {
    this.tracks.clear();
  }

  /** Forgets instances that ended before `before` (ms), e.g. at the start of a new day. */
  prune(before: number): void {
    for (const [id, t] of this.tracks) if (t.endedAt !== undefined && t.endedAt < before) this.tracks.delete(id);
  }

  /** Cost so far of one instance; undefined when it has never been seen. */
  costSoFar(i: Instance, now: number): CostSoFar | undefined {
    const total = serviceTotal(i);
    if (total !== undefined) return { amount: total, estimate: false };
    const t = this.tracks.get(i.id);
    const first = t?.samples[0];
    if (!t || !first) return undefined;
    return { amount: integrate(t.samples, first.at, this.end(t, now)), estimate: true, since: first.at };
  }

  /**
   * The members' cost so far summed; undefined when one of them has never been seen (a sum
   * missing a member would read as the group's). An estimate when any part is one, seen since
   * the latest of their first samples.
   */
  groupCostSoFar(members: readonly Instance[], now: number): CostSoFar | undefined {
    const parts = members.map((m) => this.costSoFar(m, now));
    if (!parts.length || parts.some((c) => c === undefined)) return undefined;
    const known = parts as CostSoFar[];
    const estimates = known.filter((c) => c.estimate);
    const since = estimates.flatMap((c) => (c.since !== undefined ? [c.since] : []));
    return {
      amount: known.reduce((a, c) => a + c.amount, 0),
      estimate: estimates.length > 0,
      ...(since.length ? { since: Math.max(...since) } : {}),
    };
  }

  /** What all instances seen cost from `dayStart` (ms, local midnight) until `now`, destroyed ones included. */
  spentSince(dayStart: number, now: number): CostSoFar {
    let amount = 0;
    let estimate = false;
    for (const t of this.tracks.values()) {
      const r = spentInWindow(t, dayStart, this.end(t, now));
      amount += r.amount;
      estimate ||= r.estimate;
    }
    return { amount, estimate };
  }

  private end(t: Track, now: number): number {
    return t.endedAt !== undefined ? Math.min(t.endedAt, now) : now;
  }
}

const HOUR_MS = 3_600_000;

/** $ billed between `from` and `to` (ms) when each sample's rate holds until the next sample. */
export function integrate(samples: readonly Sample[], from: number, to: number): number {
  let sum = 0;
  for (let k = 0; k < samples.length; k++) {
    const s = samples[k]!;
    const a = Math.max(from, s.at);
    const b = Math.min(to, samples[k + 1]?.at ?? Infinity);
    if (b > a) sum += (s.rate * (b - a)) / HOUR_MS;
  }
  return sum;
}

function spentInWindow(t: Track, from: number, to: number): { amount: number; estimate: boolean } {
  const s = t.samples;
  const first = s[0];
  if (!first || to <= from) return { amount: 0, estimate: false };
  const startedMs = t.startedAt !== undefined ? t.startedAt * 1000 : undefined;
  if (startedMs !== undefined && startedMs >= to) return { amount: 0, estimate: false };
  const totals = s.filter((x): x is Sample & { total: number } => x.total !== undefined);
  const lastTotal = totals[totals.length - 1];
  if (lastTotal && startedMs !== undefined && startedMs >= from) {
    // Started inside the window: all it ever cost is the window's, by the service's own figure.
    return { amount: lastTotal.total, estimate: false };
  }
  const before = [...totals].reverse().find((x) => x.at <= from);
  if (lastTotal && before) {
    // The service's running total grew by this much since the window began.
    return { amount: Math.max(0, lastTotal.total - (before.total + integrate(s, before.at, from))), estimate: true };
  }
  // Billing inside the window before the first sample (the extension was not watching yet):
  // assume the first rate seen. Without a start date nothing before the first sample is counted.
  const unseenFrom = startedMs !== undefined ? Math.max(from, startedMs) : first.at;
  const unseen = first.at > unseenFrom ? (first.rate * (Math.min(first.at, to) - unseenFrom)) / HOUR_MS : 0;
  if (lastTotal) return { amount: unseen + lastTotal.total - totals[0]!.total, estimate: true };
  return { amount: unseen + integrate(s, from, to), estimate: true };
}

/** "$1.23", or "≈ $1.23 (estimate from the rates seen since 07:01)". */
export function costSoFarText(c: CostSoFar, formatTime: (ms: number) => string): string {
  if (!c.estimate) return formatMoney(c.amount);
  return c.since !== undefined
    ? l10n.t('≈ {0} (estimate from the rates seen since {1})', formatMoney(c.amount), formatTime(c.since))
    : l10n.t('≈ {0} (estimate from the rates seen)', formatMoney(c.amount));
}

/** Local midnight before `now` (ms). */
export function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** Local clock time for cost notes ("since 07:01"). */
function hhmm(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** "Cost so far: $1.23" (the service's figure) or an estimate from the rates seen. */
export function costSoFarLine(cost: CostSoFar | undefined, formatTime: (ms: number) => string = hhmm): string | undefined {
  return cost ? l10n.t('Cost so far: {0}', costSoFarText(cost, formatTime)) : undefined;
}

/** "Spent today: $4.10", or "Spent today: ≈ $4.10 (estimate from the rates seen)". */
export function spentTodayLine(today: CostSoFar): string {
  return l10n.t('Spent today: {0}', today.estimate ? l10n.t('≈ {0} (estimate from the rates seen)', formatMoney(today.amount)) : formatMoney(today.amount));
}

/** The ledger behind Services.costs: one poll in, finished sentences out. */
export class CostNotesImpl {
  private readonly ledger = new CostLedger();

  observe(instances: readonly Instance[], now: number): void {
    this.ledger.prune(startOfDay(now));
    this.ledger.observe(instances, now);
  }

  clear(): void {
    this.ledger.clear();
  }

  line(i: Instance, now: number): string | undefined {
    return costSoFarLine(this.ledger.costSoFar(i, now));
  }

  group(members: readonly Instance[], now: number): GroupCost | undefined {
    const c = this.ledger.groupCostSoFar(members, now);
    return c && { amount: c.amount, estimate: c.estimate, line: costSoFarLine(c)! };
  }

  today(now: number): string {
    return spentTodayLine(this.ledger.spentSince(startOfDay(now), now));
  }
}
