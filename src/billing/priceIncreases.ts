// Pending host price increases as the extension sees them: fetched at most once per instance-list
// interval (one request for all instances, never one per instance), which ones are new, and the
// old → new figures a renter decides on.
import type { Instance, PendingPriceIncrease, ServiceApi } from '../api/types';
import { Emitter, type Disposable, type Event } from '../core/events';
import { formatMoney, formatRate, isBilledForCompute } from '../core/rates';
import * as l10n from '@vscode/l10n';

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

export const HOURS_PER_MONTH = 730;

export interface IncreaseFigures {
  oldPerHour: number;
  newPerHour: number;
  /** Per month at the instance's current use: GPU + disk while running, disk only while stopped. */
  oldPerMonth: number;
  newPerMonth: number;
  running: boolean;
}

const perHour = (perSec: number | null | undefined): number => (typeof perSec === 'number' ? perSec * 3600 : 0);
/** A new price the service left out (null) is the old one: nothing changes there. */
const newOr = (n: number | null | undefined, o: number | null | undefined): number | null | undefined => (typeof n === 'number' ? n : o);

export function increaseFigures(p: PendingPriceIncrease, inst: Instance | undefined): IncreaseFigures {
  const running = inst ? isBilledForCompute(inst) : true;
  const gpuOld = perHour(p.old_gpu_costpersec);
  const gpuNew = perHour(newOr(p.new_gpu_costpersec, p.old_gpu_costpersec));
  const diskOld = perHour(p.old_disk_ram_costpersec);
  const diskNew = perHour(newOr(p.new_disk_ram_costpersec, p.old_disk_ram_costpersec));
  const oldH = (running ? gpuOld : 0) + diskOld;
  const newH = (running ? gpuNew : 0) + diskNew;
  return { oldPerHour: gpuOld + diskOld, newPerHour: gpuNew + diskNew, oldPerMonth: oldH * HOURS_PER_MONTH, newPerMonth: newH * HOURS_PER_MONTH, running };
}

/**
 * How a price moves: "+25 %", "−10 %", "new charge" (the old price is 0 or unknown and the new
 * one is not), or undefined when it does not move. Never "+0 %": a rise under 0.05 % says "+<0.1 %".
 */
export function changeText(oldV: number | null | undefined, newV: number | null | undefined): string | undefined {
  return isNewCharge(oldV, newV) ? l10n.t('new charge') : percentChange(oldV, newV);
}

/** The old price is 0 or unknown and the new one is not: a value compared in code (its text is changeText's). */
function isNewCharge(oldV: number | null | undefined, newV: number | null | undefined): boolean {
  const n = typeof newV === 'number' ? newV : oldV;
  return typeof n === 'number' && !(typeof oldV === 'number' && oldV > 0) && n > 0;
}

function percentChange(oldV: number | null | undefined, newV: number | null | undefined): string | undefined {
  const n = typeof newV === 'number' ? newV : oldV;
  if (typeof n !== 'number' || !(typeof oldV === 'number' && oldV > 0)) return undefined;
  if (n === oldV) return undefined;
  const pct = ((n - oldV) / oldV) * 100;
  const abs = Math.abs(pct);
  const sign = pct > 0 ? '+' : '−';
  const shown = abs >= 9.95 ? String(Math.round(abs)) : abs >= 0.05 ? abs.toFixed(1) : '<0.1';
  return `${sign}${shown} %`;
}

/** One priced part of a rental the increase may change: GPU, disk, bandwidth, platform fee. */
interface PricePart {
  what: string;
  old: number | null | undefined;
  new: number | null | undefined;
  show(v: number): string;
}

const perGb = (v: number): string => `$${v.toFixed(4)}/GB`;
const plain = (v: number): string => String(Math.round(v * 1e6) / 1e6);

function parts(p: PendingPriceIncrease): PricePart[] {
  return [
    { what: 'GPU', old: p.old_gpu_costpersec, new: p.new_gpu_costpersec, show: (v) => formatRate(v * 3600, 3) },
    { what: l10n.t('disk and RAM'), old: p.old_disk_ram_costpersec, new: p.new_disk_ram_costpersec, show: (v) => formatRate(v * 3600, 4) },
    { what: l10n.t('upload bandwidth'), old: p.old_bwu_cost, new: p.new_bwu_cost, show: perGb },
    { what: l10n.t('download bandwidth'), old: p.old_bwd_cost, new: p.new_bwd_cost, show: perGb },
    { what: l10n.t('platform fee'), old: p.old_platform_fee, new: p.new_platform_fee, show: plain },
  ];
}

/** The parts that change, each as "GPU +25 %" / "platform fee: new charge". */
export function changedParts(p: PendingPriceIncrease): string[] {
  return parts(p).flatMap((x) => {
    if (isNewCharge(x.old, x.new)) return [l10n.t('{0}: new charge', x.what)];
    const c = percentChange(x.old, x.new);
    return c === undefined ? [] : [`${x.what} ${c}`];
  });
}

const date = (t: number | null | undefined): string | undefined =>
  typeof t === 'number' && t > 0 ? new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : undefined;

/** The short mark on the instance row: "price +25 % pending", "price: new charge pending". */
export function rowMark(p: PendingPriceIncrease, inst: Instance | undefined): string {
  const f = increaseFigures(p, inst);
  if (isNewCharge(f.oldPerHour, f.newPerHour)) return l10n.t('price: new charge pending');
  const hourly = percentChange(f.oldPerHour, f.newPerHour);
  if (hourly) return l10n.t('price {0} pending', hourly);
  const [first] = changedParts(p);
  return first ? l10n.t('price change pending ({0})', first) : l10n.t('price change pending');
}

/** The one-line notification text: every part that changes (GPU, disk, bandwidth, platform fee). */
export function increaseHeadline(p: PendingPriceIncrease, name: string, inst: Instance | undefined): string {
  const f = increaseFigures(p, inst);
  const until = date(p.ask_end_date);
  const changed = changedParts(p);
  const hourly = f.newPerHour !== f.oldPerHour ? ` (${formatRate(f.oldPerHour, 3)} → ${formatRate(f.newPerHour, 3)})` : '';
  const what = changed.length ? changed.join(', ') : l10n.t('no figure changes');
  return until
    ? l10n.t('The host of {0} raises its price: {1}{2}. Decide by {3}.', name, what, hourly, until)
    : l10n.t('The host of {0} raises its price: {1}{2}.', name, what, hourly);
}

/** Every figure of an increase, one line each (the Review modal), with what Accept and Reject do. */
export function increaseDetails(p: PendingPriceIncrease, name: string, inst: Instance | undefined): string[] {
  const f = increaseFigures(p, inst);
  const lines = [
    l10n.t('Instance: {0} (#{1})', name, p.contract_id),
    l10n.t('Per hour: {0} → {1}{2}', formatRate(f.oldPerHour, 3), formatRate(f.newPerHour, 3), fmtChange(f.oldPerHour, f.newPerHour)),
    l10n.t(
      'Per month at current use ({0}): {1} → {2}{3}',
      f.running ? l10n.t('running') : l10n.t('stopped: storage only'),
      formatMoney(f.oldPerMonth),
      formatMoney(f.newPerMonth),
      fmtChange(f.oldPerMonth, f.newPerMonth),
    ),
  ];
  for (const x of parts(p)) {
    const n = newOr(x.new, x.old);
    if (typeof x.old !== 'number' && typeof n !== 'number') continue;
    lines.push(
      `${x.what[0]!.toUpperCase()}${x.what.slice(1)}: ${typeof x.old === 'number' ? x.show(x.old) : 'none'} → ${typeof n === 'number' ? x.show(n) : 'none'}${fmtChange(x.old, x.new)}`,
    );
  }
  const end = date(p.contract_end_date);
  const ask = date(p.ask_end_date);
  if (end) lines.push(l10n.t('Contract ends: {0}', end));
  if (ask) lines.push(l10n.t('New price offered until: {0}', ask));
  lines.push('', l10n.t('Accept: the rental is billed at the new prices from now on.'));
  lines.push(
    l10n.t(
      'Reject: the rental keeps its current prices ({0}); rejecting stops or destroys nothing{1}.',
      formatRate(f.oldPerHour, 3),
      end ? `, and the host's contract still ends ${end}` : '',
    ),
  );
  return lines;
}

const fmtChange = (o: number | null | undefined, n: number | null | undefined): string => {
  const c = changeText(o, n);
  return c ? ` (${c})` : '';
};

/**
 * What the user is shown of an increase, as one string: if any figure of the same id differs
 * from what was shown, the user sees the new figures before deciding.
 */
export function figuresKey(p: PendingPriceIncrease): string {
  return JSON.stringify([
    p.pending_price_increase_id,
    p.contract_id,
    ...parts(p).flatMap((x) => [x.old ?? null, x.new ?? null]),
    p.contract_end_date ?? null,
    p.ask_end_date ?? null,
  ]);
}
