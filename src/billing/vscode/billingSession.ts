// The billing watch of one window: pending price increases (fetched at most once per list
// interval), their status bar count, their row marks and one notification per new increase.
// Loaded with the first instance list (dist/billingSession.js), never at activation.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { PendingPriceIncrease } from '../../api/types';
import { PriceIncreaseWatcher, increaseHeadline, newIncreases, rowMark } from '../priceIncreases';
import { SpendingStore, instanceCostLine, spentLines } from '../spending';
import type { Instance } from '../../api/types';
import { checkBudgetNow } from './budgetWatch';
import { KEEP_STOPPED_KEY, TOLD_CONTRACT_END_KEY, TOLD_OUTBID_KEY, checkIdleBilling } from './idleBilling';
import { idList } from '../../instances/instanceGone';
import { instanceName } from '../../instances/instanceViewModel';
import type { InstanceMark } from '../../core/instanceMarks';
import { background } from '../../core/background';

/** Price increases this window already told about (bounded), so a reload does not repeat them. */
export const NOTIFIED_INCREASES_KEY = 'gpuRental.billing.notifiedIncreases';
const MAX_REMEMBERED = 200;

export interface BillingSession {
  increases: PriceIncreaseWatcher;
  /** The service's charges (read at most every 5 minutes). */
  spending: SpendingStore;
  /** "Spent today: $x · This week: … · This month: …" from the charges, or undefined without them. */
  spentToday(): string | undefined;
  /** "Cost so far: $x (the service's charges)" when the charges cover the instance's life. */
  costLine(i: Instance): string | undefined;
  statusItem: vscode.StatusBarItem;
  /** Notifications shown (tests). */
  notified: number[];
  /** The last check of stopped, outbid and ending instances (tests wait on it). */
  idle?: Promise<void>;
}

const sessions = new WeakMap<Services, BillingSession>();

export function billingSession(services: Services): BillingSession {
  return sessions.get(services) ?? startBilling(services);
}

export function startBilling(services: Services): BillingSession {
  const existing = sessions.get(services);
  if (existing) return existing;
  const increases = new PriceIncreaseWatcher({
    api: () => services.api(),
    onDidListInstances: (l) => services.instances.onDidChange((list) => {
      if (services.connection().signedIn && services.instances.loaded) l(list);
    }),
    intervalMs: () => services.settings().pollIntervalSeconds * 1000,
    now: () => Date.now(),
    warn: (m) => services.log.warn(m),
  });
  const statusItem = vscode.window.createStatusBarItem('gpuRental.priceIncreases', vscode.StatusBarAlignment.Left, 49);
  statusItem.name = 'GPU Rental Price Increases';
  statusItem.command = { command: 'gpuRental.reviewPriceIncrease', title: 'Review Price Increase' };
  statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  const spending = new SpendingStore({ api: () => services.api(), now: () => Date.now() / 1000, warn: (m) => services.log.warn(m) });
  const session: BillingSession = {
    increases,
    spending,
    statusItem,
    notified: [],
    spentToday: () => (spending.current ? spentLines(spending.current).join(' · ') : undefined),
    costLine: (i) => instanceCostLine(spending.current, i),
  };
  sessions.set(services, session);
  services.billing = session;
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
  services.track(increases.onDidChange((rows) => show(services, session, rows)));
  services.track(services.instances.onDidChange(() => markRows(services, increases.pending)));
  background(increases.maybeFetch(), services.log, 'reading price increases');
  return session;
}

function nameOf(services: Services, id: number): string {
  const inst = services.instances.get(id);
  return inst ? instanceName(inst) : `instance #${id}`;
}

function markRows(services: Services, rows: readonly PendingPriceIncrease[]): void {
  const marks = new Map<number, InstanceMark>();
  for (const p of rows) {
    const inst = services.instances.get(p.contract_id);
    marks.set(p.contract_id, { text: rowMark(p, inst), tooltip: `${increaseHeadline(p, nameOf(services, p.contract_id), inst)} Run "GPU Rental: Review Price Increase" to accept or reject it.` });
  }
  services.marks.set('priceIncreases', marks);
}

function show(services: Services, session: BillingSession, rows: readonly PendingPriceIncrease[]): void {
  markRows(services, rows);
  const n = rows.length;
  if (n === 0) session.statusItem.hide();
  else {
    session.statusItem.text = `$(arrow-up) ${n} price increase${n === 1 ? '' : 's'}`;
    session.statusItem.tooltip = `${n} host${n === 1 ? ' has' : 's have'} raised the price of a running rental. Click to review.`;
    session.statusItem.accessibilityInformation = { label: `GPU Rental: ${n} pending price increase${n === 1 ? '' : 's'}` };
    session.statusItem.show();
  }
  // Ids are the service's: remembered per server (a new demo simulator numbers from the start again).
  const b = services.connectionState.baseUrl();
  const server = b.ok ? b.url : '';
  const all = services.globalState.get<Record<string, number[]>>(NOTIFIED_INCREASES_KEY) ?? {};
  const remembered = Array.isArray(all[server]) ? all[server] : [];
  const fresh = newIncreases(rows, new Set([...remembered, ...session.notified]));
  if (!fresh.length) return;
  session.notified.push(...fresh.map((p) => p.pending_price_increase_id));
  background(services.globalState.update(NOTIFIED_INCREASES_KEY, { ...all, [server]: [...remembered, ...fresh.map((p) => p.pending_price_increase_id)].slice(-MAX_REMEMBERED) }), services.log, 'remembering notified price increases');
  for (const p of fresh) notify(services, p);
}

function notify(services: Services, p: PendingPriceIncrease): void {
  const id = p.pending_price_increase_id;
  const inst = services.instances.get(p.contract_id);
  background(vscode.window.showWarningMessage(`GPU Rental: ${increaseHeadline(p, nameOf(services, p.contract_id), inst)}`, 'Accept', 'Reject', 'Details').then((a) => {
    if (a === 'Accept') return vscode.commands.executeCommand('gpuRental.acceptPriceIncrease', id);
    if (a === 'Reject') return vscode.commands.executeCommand('gpuRental.rejectPriceIncrease', id);
    if (a === 'Details') return vscode.commands.executeCommand('gpuRental.reviewPriceIncrease', id);
    return undefined;
  }), services.log, 'the price increase notice');
}
