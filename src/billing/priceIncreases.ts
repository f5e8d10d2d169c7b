// Pending host price increases as the extension sees them: fetched at most once per instance-list
// interval (one request for all instances, never one per instance), which ones are new, and the
// old → new figures a renter decides on.
import type { Instance, PendingPriceIncrease, ServiceApi } from '../api/types';
import { Emitter, type Disposable, type Event } from '../core/events';
import { formatMoney, formatRate, isBilledForCompute } from '../costs/costs';

export interface PriceIncreaseDeps {
  api(): Promise<ServiceApi>;
  /** Fires after every walk of the instance list. */
  onDidListInstances: Event<unknown>;
  /** The list's polling interval (ms): the increases are asked for at most this often. */
  intervalMs(): number;
  now(): number;
  warn(message: string): void;
}

export class PriceIncreaseWatcher implements Disposable {
  private rows: PendingPriceIncrease[] = [];
  private lastFetch = -Infinity;
  private inFlight: Promise<void> | undefined;
  private readonly changed = new Emitter<readonly PendingPriceIncrease[]>();
  readonly onDidChange = this.changed.event;
  /** The last failure (the endpoint is missing on older servers), or undefined. */
  error: string | undefined;
  private readonly sub: Disposable;
  /** How many requests were sent (tests, diagnostics). */
  fetches = 0;

  constructor(private readonly deps: PriceIncreaseDeps) {
    this.sub = deps.onDidListInstances(() => {
      this.maybeFetch().catch((e: unknown) => this.deps.warn(`Pending price increases could not be read: ${e instanceof Error ? e.message : String(e)}`));
    });
  }

  get pending(): readonly PendingPriceIncrease[] {
    return this.rows;
  }

  forInstance(id: number): PendingPriceIncrease[] {
    return this.rows.filter((p) => p.contract_id === id);
  }

  byId(id: number): PendingPriceIncrease | undefined {
    return this.rows.find((p) => p.pending_price_increase_id === id);
  }

  /** Fetches unless the last fetch is younger than the list interval. */
  maybeFetch(): Promise<void> {
    if (this.deps.now() - this.lastFetch < this.deps.intervalMs()) return this.inFlight ?? Promise.resolve();
    return this.refresh();
  }

  /** Fetches now (after an accept or reject, or a stale answer). */
  refresh(): Promise<void> {
    this.inFlight ??= this.fetch().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetch(): Promise<void> {
    this.lastFetch = this.deps.now();
    this.fetches++;
    try {
      const r = await (await this.deps.api()).listPendingPriceIncreases();
      this.error = undefined;
      this.rows = r.pending_price_increases;
      this.changed.fire(this.rows);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (this.error !== msg) this.deps.warn(`Pending price increases could not be read: ${msg}`);
      this.error = msg;
    }
  }

  /** Forget the rows (sign-out, connection change). */
  clear(): void {
    this.rows = [];
    this.lastFetch = -Infinity;
    this.changed.fire(this.rows);
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

/** Ids of `rows` not in `seen`, in order. */
export function newIncreases(rows: readonly PendingPriceIncrease[], seen: ReadonlySet<number>): PendingPriceIncrease[] {
  return rows.filter((p) => !seen.has(p.pending_price_increase_id));
}

export const HOURS_PER_MONTH = 730;

export interface IncreaseFigures {
  oldPerHour: number;
  newPerHour: number;
  /** Per month at the instance's current use: GPU + disk while running, disk only while stopped. */
  oldPerMonth: number;
  newPerMonth: number;
  /** Percent change of the hourly price at current use (0 when there was no price). */
  percent: number;
  running: boolean;
}

const perHour = (perSec: number | null | undefined): number => (typeof perSec === 'number' ? perSec * 3600 : 0);

export function increaseFigures(p: PendingPriceIncrease, inst: Instance | undefined): IncreaseFigures {
  const running = inst ? isBilledForCompute(inst) : true;
  const gpuOld = perHour(p.old_gpu_costpersec);
  const gpuNew = perHour(p.new_gpu_costpersec ?? p.old_gpu_costpersec);
  const diskOld = perHour(p.old_disk_ram_costpersec);
  const diskNew = perHour(p.new_disk_ram_costpersec ?? p.old_disk_ram_costpersec);
  const oldH = (running ? gpuOld : 0) + diskOld;
  const newH = (running ? gpuNew : 0) + diskNew;
  const allOld = gpuOld + diskOld;
  const allNew = gpuNew + diskNew;
  return {
    oldPerHour: allOld,
    newPerHour: allNew,
    oldPerMonth: oldH * HOURS_PER_MONTH,
    newPerMonth: newH * HOURS_PER_MONTH,
    percent: allOld > 0 ? ((allNew - allOld) / allOld) * 100 : 0,
    running,
  };
}

const date = (t: number | null | undefined): string | undefined => (typeof t === 'number' && t > 0 ? new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : undefined);

/** The short mark on the instance row: "price +25 % pending". */
export function rowMark(p: PendingPriceIncrease, inst: Instance | undefined): string {
  const f = increaseFigures(p, inst);
  return `price ${f.percent >= 0 ? '+' : ''}${Math.round(f.percent)} % pending`;
}

/** The one-line notification text. */
export function increaseHeadline(p: PendingPriceIncrease, name: string, inst: Instance | undefined): string {
  const f = increaseFigures(p, inst);
  const until = date(p.ask_end_date);
  return `The host of ${name} raises its price: ${formatRate(f.oldPerHour, 3)} → ${formatRate(f.newPerHour, 3)} (${f.percent >= 0 ? '+' : ''}${Math.round(f.percent)} %).${until ? ` Decide by ${until}.` : ''}`;
}

/** Every figure of an increase, one line each (the Details view). */
export function increaseDetails(p: PendingPriceIncrease, name: string, inst: Instance | undefined): string[] {
  const f = increaseFigures(p, inst);
  const lines = [
    `Instance: ${name} (#${p.contract_id})`,
    `Per hour: ${formatRate(f.oldPerHour, 3)} → ${formatRate(f.newPerHour, 3)}`,
    `GPU: ${formatRate(perHour(p.old_gpu_costpersec), 3)} → ${formatRate(perHour(p.new_gpu_costpersec ?? p.old_gpu_costpersec), 3)}`,
    `Disk and RAM: ${formatRate(perHour(p.old_disk_ram_costpersec), 4)} → ${formatRate(perHour(p.new_disk_ram_costpersec ?? p.old_disk_ram_costpersec), 4)}`,
    `Per month at current use (${f.running ? 'running' : 'stopped: storage only'}): ${formatMoney(f.oldPerMonth)} → ${formatMoney(f.newPerMonth)}`,
  ];
  const bw = (o: number | null | undefined, n: number | null | undefined) => (typeof o === 'number' || typeof n === 'number' ? `${o ?? '?'} → ${n ?? o ?? '?'}` : undefined);
  const up = bw(p.old_bwu_cost, p.new_bwu_cost);
  const down = bw(p.old_bwd_cost, p.new_bwd_cost);
  if (up) lines.push(`Upload bandwidth cost: ${up}`);
  if (down) lines.push(`Download bandwidth cost: ${down}`);
  const fee = bw(p.old_platform_fee, p.new_platform_fee);
  if (fee) lines.push(`Platform fee: ${fee}`);
  const end = date(p.contract_end_date);
  const ask = date(p.ask_end_date);
  if (end) lines.push(`Contract ends: ${end}`);
  if (ask) lines.push(`New price offered until: ${ask}`);
  return lines;
}
