// Money actually spent, from the service's per-day charges (GET /api/v0/charges/): today, this
// week (from Monday, UTC), this month (UTC), the last 30 days by day, and per instance. Charges
// are days in UTC, as the service bills them.
import type { Charge, Instance, ServiceApi } from '../api/types';
import { Emitter, type Disposable } from '../core/events';
import { formatMoney, type GroupCost } from '../core/rates';
import * as l10n from '@vscode/l10n';

export const DAY = 86400;
export const dayStart = (t: number): number => Math.floor(t / DAY) * DAY;

export function weekStart(t: number): number {
  const d = dayStart(t);
  const dow = (new Date(d * 1000).getUTCDay() + 6) % 7; // Monday 0
  return d - dow * DAY;
}

export function monthStart(t: number): number {
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

/** The first second the charges are asked from: the earliest of the month, the week and 29 days back. */
export function windowStart(now: number): number {
  return Math.min(monthStart(now), weekStart(now), dayStart(now) - 29 * DAY);
}

export interface SpendingDay {
  day: number;
  total: number;
  byType: Record<string, number>;
}

export interface Spending {
  /** When the charges were read (epoch s). */
  at: number;
  from: number;
  today: number;
  week: number;
  month: number;
  last30: number;
  /** The last 30 days, oldest first, a row for every day (0 when nothing was charged). */
  days: SpendingDay[];
  /** By instance id, over the whole window (at most MAX_INSTANCES ids; the rest is in `other`). */
  byInstance: Map<number, number>;
  /** The disk items of each instance's charges (what a stopped machine's storage has cost). */
  storageByInstance: Map<number, number>;
  /** The label the charges give each instance (for instances no longer listed). */
  labels: Map<number, string>;
  /** Charges that are not an instance's (volumes, serverless), and instances past the cap. */
  other: number;
  /** How many charge rows were summed. */
  rows: number;
}

/** The most instances summed one by one: a walk keeps only sums, whatever the service sends. */
export const MAX_INSTANCES = 1000;
const MAX_LABEL = 120;

export function instanceIdOf(source: string): number | undefined {
  const m = /^instance-(\d+)$/.exec(source);
  return m ? Number(m[1]) : undefined;
}

/**
 * The sums of the charges, fed page by page (`add`): no row is kept, so a walk of any length or
 * page size holds one page at a time plus these sums.
 */
export class SpendingSum {
  private readonly s: Spending;
  private readonly today: number;
  private readonly week: number;
  private readonly month: number;
  private readonly byDay = new Map<number, SpendingDay>();

  constructor(now: number) {
    this.today = dayStart(now);
    this.week = weekStart(now);
    this.month = monthStart(now);
    for (let d = this.today - 29 * DAY; d <= this.today; d += DAY) this.byDay.set(d, { day: d, total: 0, byType: {} });
    this.s = {
      at: now,
      from: windowStart(now),
      today: 0,
      week: 0,
      month: 0,
      last30: 0,
      days: [],
      byInstance: new Map(),
      storageByInstance: new Map(),
      labels: new Map(),
      other: 0,
      rows: 0,
    };
  }

  add(charges: readonly Charge[]): void {
    const s = this.s;
    for (const c of charges) {
      s.rows++;
      const d = dayStart(c.start);
      if (d === this.today) s.today += c.amount;
      if (d >= this.week && d <= this.today) s.week += c.amount;
      if (d >= this.month && d <= this.today) s.month += c.amount;
      const row = this.byDay.get(d);
      if (row) {
        row.total += c.amount;
        if (Object.hasOwn(row.byType, c.type) || Object.keys(row.byType).length < 8) row.byType[c.type] = (row.byType[c.type] ?? 0) + c.amount;
        s.last30 += c.amount;
      }
      const id = instanceIdOf(c.source);
      if (id === undefined || (!s.byInstance.has(id) && s.byInstance.size >= MAX_INSTANCES)) {
        s.other += c.amount;
        continue;
      }
      s.byInstance.set(id, (s.byInstance.get(id) ?? 0) + c.amount);
      const disk = c.items.reduce((a, i) => (i.type === 'disk' ? a + i.amount : a), 0);
      s.storageByInstance.set(id, (s.storageByInstance.get(id) ?? 0) + disk);
      const label = c.metadata?.label;
      if (label && !s.labels.has(id)) s.labels.set(id, label.slice(0, MAX_LABEL));
    }
  }

  result(): Spending {
    return { ...this.s, days: [...this.byDay.values()].map((d) => ({ ...d, byType: { ...d.byType } })) };
  }
}

/** @internal test */
export function summarizeCharges(charges: readonly Charge[], now: number): Spending {
  const sum = new SpendingSum(now);
  sum.add(charges);
  return sum.result();
}

/** What the service charged for the instance, when the charges cover its whole life. */
function instanceCharged(s: Spending | undefined, i: Instance): number | undefined {
  if (!s) return undefined;
  const start = typeof i.start_date === 'number' ? i.start_date : undefined;
  if (start === undefined || start < s.from) return undefined;
  return s.byInstance.get(i.id);
}

/** "Cost so far: $x (service charges)" when the charges cover the instance's whole life. */
export function instanceCostLine(s: Spending | undefined, i: Instance): string | undefined {
  return groupCost(s, [i])?.line;
}

/** The members' sum, only when the charges cover every member (else the rate ledger answers for all of them). */
export function groupCost(s: Spending | undefined, members: readonly Instance[]): GroupCost | undefined {
  let sum = 0;
  for (const i of members) {
    const v = instanceCharged(s, i);
    if (v === undefined) return undefined;
    sum += v;
  }
  return members.length ? { amount: sum, estimate: false, line: l10n.t("Cost so far: {0} (the service's charges)", formatMoney(sum)) } : undefined;
}

export function spentLines(s: Spending): string[] {
  return [l10n.t('Spent today: {0}', formatMoney(s.today)), l10n.t('This week: {0}', formatMoney(s.week)), l10n.t('This month: {0}', formatMoney(s.month))];
}

/** CSV of the charges (RFC 4180 quoting; cells a spreadsheet would run as a formula are prefixed with '). */
export function chargesCsv(charges: readonly Charge[]): string {
  const cell = (v: string | number): string => {
    let t = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(t)) t = `'${t}`;
    return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  const types = [...new Set(charges.flatMap((c) => c.items.map((i) => i.type)))].sort();
  const head = ['day', 'type', 'source', 'label', 'description', 'amount_usd', ...types.map((t) => `${t}_usd`)];
  const rows = [...charges]
    .sort((a, b) => a.start - b.start || a.source.localeCompare(b.source))
    .map((c) => [
      new Date(c.start * 1000).toISOString().slice(0, 10),
      c.type,
      c.source,
      c.metadata?.label ?? '',
      c.description ?? '',
      c.amount.toFixed(6),
      ...types.map((t) =>
        c.items
          .filter((i) => i.type === t)
          .reduce((a, i) => a + i.amount, 0)
          .toFixed(6),
      ),
    ]);
  return [head, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

export interface SpendingDeps {
  api(): Promise<ServiceApi>;
  now(): number;
  warn(message: string): void;
}

/** The charges, read at most every `minAgeS` seconds (they change by the day, not the second). */
export class SpendingStore implements Disposable {
  current: Spending | undefined;
  error: string | undefined;
  private inFlight: Promise<Spending | undefined> | undefined;
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly deps: SpendingDeps,
    private readonly minAgeS = 300,
  ) {}

  maybeRefresh(): Promise<Spending | undefined> {
    if (this.current && this.deps.now() - this.current.at < this.minAgeS) return Promise.resolve(this.current);
    return this.refresh();
  }

  refresh(): Promise<Spending | undefined> {
    this.inFlight ??= this.read().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async read(): Promise<Spending | undefined> {
    const now = this.deps.now();
    try {
      const sum = new SpendingSum(now);
      await (await this.deps.api()).forEachChargePage({ from: windowStart(now), to: now }, (rows) => sum.add(rows));
      this.current = sum.result();
      this.error = undefined;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (this.error !== msg) this.deps.warn(`The service's charges could not be read (figures stay estimates): ${msg}`);
      this.error = msg;
    }
    this.changed.fire();
    return this.current;
  }

  clear(): void {
    this.current = undefined;
    this.error = undefined;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
