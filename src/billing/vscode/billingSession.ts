// The billing watch of one window: pending price increases (fetched at most once per list
// interval), their status bar count, their row marks and their notifications (each with one
// button, Review…; many new ones in one read: one notification).
// Loaded with the first instance list (dist/billingSession.js), never at activation.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { PendingPriceIncrease } from '../../api/types';
import type { Instance } from '../../api/types';
import { PriceIncreaseWatcher, increaseHeadline, rowMark } from '../priceIncreases';
import { IncreaseNotices } from '../increaseNotices';
import type { GroupCost } from '../../core/rates';
import { SpendingStore, instanceCostLine, groupCost, spentLines } from '../spending';
import { checkBudgetNow } from './budgetWatch';
import { checkIdleBilling } from './idleBilling';
import { idList } from '../../instances/instanceGone';
import { instanceName } from '../../core/instanceWords';
import type { InstanceMark } from '../../core/instanceMarks';
import { background } from '../../core/background';
import { KEEP_STOPPED_KEY, TOLD_CONTRACT_END_KEY, TOLD_OUTBID_KEY } from '../../core/stateKeys';

export const REVIEW = 'Review…';

export interface BillingSession {
  increases: PriceIncreaseWatcher;
  /** The service's charges (read at most every 5 minutes). */
  spending: SpendingStore;
  /** "Spent today: $x · This week: … · This month: …" from the charges, or undefined without them. */
  spentToday(): string | undefined;
  /** "Cost so far: $x (the service's charges)" when the charges cover the instance's life. */
  costLine(i: Instance): string | undefined;
  /** The members' cost so far summed, when the charges cover every one of them. */
  groupCost(members: readonly Instance[]): GroupCost | undefined;
  statusItem: vscode.StatusBarItem;
  /** Increases told about in a notification (tests). */
  notified: number[];
  /** An increase was accepted or rejected: it is not told about again while it is listed. */
  decided(id: number): void;
  /** The last check of stopped, outbid and ending instances (tests wait on it). */
  idle?: Promise<void>;
}

/** The one owner of each window's billing session (the lint lets no other file keep one). */
const sessions = new WeakMap<object, BillingSession>();

/** What the billing session reads and writes: the slice every caller that may start it passes. */
export type BillingServices = Pick<
  Services,
  | 'api'
  | 'connection'
  | 'connectionState'
  | 'credit'
  | 'globalState'
  | 'instanceGone'
  | 'instances'
  | 'log'
  | 'marks'
  | 'onDidChangeConnection'
  | 'settings'
  | 'track'
>;

/** The window's billing session, started by the first caller (the first instance list, or a billing command). */
export function billingSession(services: BillingServices): BillingSession {
  return sessions.get(services) ?? startBilling(services);
}

/** The window's billing session if it has started (cost notes, integration tests), without starting it. */
export function runningBilling(services: Pick<Services, never>): BillingSession | undefined {
  return sessions.get(services);
}

function startBilling(services: BillingServices): BillingSession {
  const increases = new PriceIncreaseWatcher({
    api: () => services.api(),
    onDidListInstances: (l) =>
      services.instances.onDidChange((list) => {
        if (services.connection().signedIn && services.instances.loaded) l(list);
      }),
    intervalMs: () => services.settings().pollIntervalSeconds * 1000,
    now: () => Date.now(),
    warn: (m) => services.log.warn(m),
  });
  const statusItem = vscode.window.createStatusBarItem('gpuRental.priceIncreases', vscode.StatusBarAlignment.Left, 49);
  statusItem.name = 'GPU Rental Price Increases';
  statusItem.command = { command: 'gpuRental.reviewPriceIncrease', title: vscode.l10n.t('Review Price Increase') };
  statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  const spending = new SpendingStore({ api: () => services.api(), now: () => Date.now() / 1000, warn: (m) => services.log.warn(m) });
  // Ids are the service's: remembered per server (a new demo simulator numbers from the start again).
  const notices = new IncreaseNotices(services.globalState, () => {
    const b = services.connectionState.baseUrl();
    return b.ok ? b.url : '';
  });
  const session: BillingSession = {
    increases,
    spending,
    statusItem,
    notified: [],
    decided: (id) => notices.decided(id),
    spentToday: () => (spending.current ? spentLines(spending.current).join(' · ') : undefined),
    costLine: (i) => instanceCostLine(spending.current, i),
    groupCost: (members) => groupCost(spending.current, members),
  };
  sessions.set(services, session);
  services.track(increases);
  services.track(statusItem);
  services.track(spending);
  // Per-instance memories go with their instance.
  services.track(services.instanceGone.register(idList('billing: keep stopped', services.globalState, KEEP_STOPPED_KEY)));
  services.track(services.instanceGone.register(idList('billing: told outbid', services.globalState, TOLD_OUTBID_KEY)));
  services.track(services.instanceGone.register(idList('billing: told contract end', services.globalState, TOLD_CONTRACT_END_KEY)));
  services.track(
    services.onDidChangeConnection(() => {
      increases.clear();
      spending.clear();
      session.notified.length = 0;
      notices.reset();
    }),
  );
  services.track(
    services.instances.onDidChange(() => {
      if (!services.connection().signedIn || !services.instances.loaded) return;
      background(spending.maybeRefresh(), services.log, 'refreshing spending');
      session.idle = checkIdleBilling(services, spending.current);
    }),
  );
  // The budget follows the charges and its settings (src/billing/vscode/budgetWatch.ts).
  services.track(spending.onDidChange(() => background(checkBudgetNow(services, spending.current), services.log, 'checking the budget')));
  services.track(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('gpuRental.budget')) background(checkBudgetNow(services, spending.current), services.log, 'checking the budget');
    }),
  );
  background(spending.refresh(), services.log, 'refreshing spending');
  services.track(increases.onDidChange((rows) => show(services, session, notices, rows)));
  services.track(services.instances.onDidChange(() => markRows(services, increases.pending)));
  background(increases.maybeFetch(), services.log, 'reading price increases');
  return session;
}

function nameOf(services: Pick<Services, 'instances'>, id: number): string {
  const inst = services.instances.get(id);
  return inst ? instanceName(inst) : `instance #${id}`;
}

function markRows(services: Pick<Services, 'instances' | 'marks'>, rows: readonly PendingPriceIncrease[]): void {
  const marks = new Map<number, InstanceMark>();
  for (const p of rows) {
    const inst = services.instances.get(p.contract_id);
    marks.set(p.contract_id, {
      text: rowMark(p, inst),
      tooltip: vscode.l10n.t(
        '{0} Right-click the row, Review Price Increase…, to accept or reject it.',
        increaseHeadline(p, nameOf(services, p.contract_id), inst),
      ),
      context: 'priceUp',
    });
  }
  services.marks.set('priceIncreases', marks);
}

function show(
  services: Pick<Services, 'instances' | 'log' | 'marks'>,
  session: BillingSession,
  notices: IncreaseNotices,
  rows: readonly PendingPriceIncrease[],
): void {
  markRows(services, rows);
  const n = rows.length;
  if (n === 0) session.statusItem.hide();
  else {
    session.statusItem.text = `$(arrow-up) ${n} price increase${n === 1 ? '' : 's'}`;
    session.statusItem.tooltip = vscode.l10n.t('{0} host{1} raised the price of a rental. Click to review.', n, n === 1 ? ' has' : 's have');
    session.statusItem.accessibilityInformation = { label: vscode.l10n.t('GPU Rental: {0} pending price increase{1}', n, n === 1 ? '' : 's') };
    session.statusItem.show();
  }
  const { plan, saved } = notices.take(rows);
  background(saved, services.log, 'remembering notified price increases');
  if (!plan) return;
  if ('group' in plan) {
    session.notified.push(...plan.group.map((p) => p.pending_price_increase_id));
    const names = plan.group.slice(0, 3).map((p) => nameOf(services, p.contract_id));
    const more = plan.group.length - names.length;
    // One notification for the kind; Review… picks one and shows its figures before any decision.
    notify(
      services,
      `${plan.group.length} hosts raise the price of your rentals (${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}). Nothing changes until you accept.`,
      undefined,
    );
    return;
  }
  for (const p of plan.each) {
    session.notified.push(p.pending_price_increase_id);
    notify(services, increaseHeadline(p, nameOf(services, p.contract_id), services.instances.get(p.contract_id)), p);
  }
}

/** A notification with one button, Review…: no money decision from a toast. */
function notify(services: Pick<Services, 'log'>, message: string, p: PendingPriceIncrease | undefined): void {
  background(
    vscode.window
      .showWarningMessage(message, REVIEW)
      .then((a) => (a === REVIEW ? vscode.commands.executeCommand('gpuRental.reviewPriceIncrease', p) : undefined)),
    services.log,
    'the price increase notice',
  );
}
