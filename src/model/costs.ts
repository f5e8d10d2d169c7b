// Cost math for the status bar, tooltips and the low-credit warning.
import type { Instance, InstanceState } from '../api/types';

/** States in which only storage is billed (stopped by the user, or failed). */
const STORAGE_ONLY: ReadonlySet<InstanceState> = new Set(['stopped', 'exited', 'unknown', 'offline', 'frozen']);

export function isBilledForCompute(i: Instance): boolean {
  return !STORAGE_ONLY.has(i.state);
}

function num(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Storage $/h of an instance (billed in every state until destroyed). */
export function storageRate(i: Instance): number {
  // While stopped dph_total is unchanged on the wire; the storage-only rate is instance.totalHour.
  if (!isBilledForCompute(i)) {
    return num(i.instance?.totalHour) ?? num(i.storage_cost) ?? num(i.instance?.diskHour) ?? 0;
  }
  return num(i.storage_cost) ?? num(i.instance?.diskHour) ?? 0;
}

/** What the instance costs per hour right now. */
export function currentRate(i: Instance): number {
  if (!isBilledForCompute(i)) return storageRate(i);
  return num(i.dph_total) ?? num(i.instance?.totalHour) ?? 0;
}

/** The compute part of the current rate (0 while stopped). */
export function computeRate(i: Instance): number {
  return Math.max(0, currentRate(i) - (isBilledForCompute(i) ? storageRate(i) : currentRate(i)));
}

export interface CostSummary {
  /** Sum of current rates: compute of active instances + storage of the others. */
  totalPerHour: number;
  /** Sum of current rates of instances billed for compute (running, loading, …). */
  activePerHour: number;
  /** Storage of stopped/failed instances. */
  idleStoragePerHour: number;
  running: number;
  active: number;
  stopped: number;
  credit: number | undefined;
  /** Hours the credit lasts at totalPerHour (undefined without credit or spend). */
  hoursLeft: number | undefined;
}

export function summarizeCosts(instances: readonly Instance[], credit: number | undefined): CostSummary {
  let activePerHour = 0;
  let idleStoragePerHour = 0;
  let running = 0;
  let active = 0;
  let stopped = 0;
  for (const i of instances) {
    if (isBilledForCompute(i)) {
      activePerHour += currentRate(i);
      active++;
      if (i.state === 'running') running++;
    } else {
      idleStoragePerHour += currentRate(i);
      stopped++;
    }
  }
  const totalPerHour = activePerHour + idleStoragePerHour;
  return {
    totalPerHour,
    activePerHour,
    idleStoragePerHour,
    running,
    active,
    stopped,
    credit,
    hoursLeft: hoursOfCreditLeft(credit, totalPerHour),
  };
}

export function hoursOfCreditLeft(credit: number | undefined, perHour: number): number | undefined {
  if (credit === undefined || !Number.isFinite(credit)) return undefined;
  if (perHour <= 0) return undefined;
  return Math.max(0, credit) / perHour;
}

/** `$1.84/h`; offer prices pass 3 decimals, where cents hide the difference between offers. */
export function formatRate(perHour: number, decimals = 2): string {
  // A storage-only rate such as $0.003/h must not read as free.
  const smallest = 10 ** -decimals;
  if (perHour > 0 && perHour < smallest / 2) return `<$${smallest.toFixed(decimals)}/h`;
  return `$${perHour.toFixed(decimals)}/h`;
}

export function formatMoney(amount: number): string {
  return `${amount < 0 ? '-' : ''}$${Math.abs(amount).toFixed(2)}`;
}

export function formatHours(h: number): string {
  if (h < 1) return `${Math.max(0, Math.round(h * 60))} min`;
  if (h < 48) return `${h.toFixed(h < 10 ? 1 : 0)} h`;
  return `${(h / 24).toFixed(1)} days`;
}

/** True when the credit runs out within `thresholdHours` at the current spend (0 disables). */
export function isCreditLow(s: CostSummary, thresholdHours: number): boolean {
  return thresholdHours > 0 && s.hoursLeft !== undefined && s.hoursLeft < thresholdHours;
}

// ---- money already spent -------------------------------------------------------------

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
  return `≈ ${formatMoney(c.amount)} (estimate from the rates seen${c.since !== undefined ? ` since ${formatTime(c.since)}` : ''})`;
}

/** Local midnight before `now` (ms). */
export function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}
