// The budget warning and its action, without VS Code (vscode/budgetWatch.ts hands over the
// prompts and the Stop command): at most one warning per level and month; at 100 % with
// budget.onExceeded = stopGuarded, an offer to stop the running instances that carry our idle
// guard, confirmed first, and then only those: an instance that meanwhile stopped, lost its
// guard or left the account's list is left alone, and nothing else is ever stopped.
import type { Instance } from '../api/types';
import type { KeyValueStore } from '../core/ports';
import { budgetMessage, checkBudget, guardedRunning, levelToWarn, type BudgetWarned } from './budget';
import { BUDGET_WARNED_KEY } from '../core/stateKeys';
import * as l10n from '@vscode/l10n';

export type BudgetOutcome = { level: 80 | 100; action?: 'stopped' | 'declined' | 'spending' | 'none'; stopped?: number[] } | undefined;

export const showSpendingLabel = (): string => l10n.t('Show Spending');
export const stopAllRunningLabel = (): string => l10n.t('Stop All Running…');
export const stopGuardedLabel = (n: number): string => (n === 1 ? l10n.t('Stop 1 Guarded Instance…') : l10n.t('Stop {0} Guarded Instances…', n));

export interface BudgetPrompts {
  /** The warning (a notification); the button chosen, or undefined. */
  warn(message: string, buttons: readonly string[]): Promise<string | undefined>;
  /** The modal before stopping: true only when the user chose Stop. */
  confirmStop(names: readonly string[]): Promise<boolean>;
}

export interface BudgetDeps {
  monthly: number;
  onExceeded: 'warn' | 'stopGuarded';
  /** This month's charges (dollars) and the running rate ($/h). */
  spent: number;
  ratePerHour: number;
  /** When the rate was read ("as of 15:42"), shown with it. */
  rateAsOf?: string;
  nowS: number;
  state: KeyValueStore;
  /** The account's instance list as it is now (read again after each prompt). */
  instances(): readonly Instance[];
  name(i: Instance): string;
  prompts: BudgetPrompts;
  /** Stops one instance (the Stop command: one owner of that side effect). */
  stop(id: number): Promise<unknown>;
  showSpending(): void;
  stopAllRunning(): void;
}

/** Checks the budget; shows at most one warning and runs what the user chose. Resolves when done. */
export async function budgetAction(d: BudgetDeps): Promise<BudgetOutcome> {
  const c = checkBudget(d.monthly, d.spent, d.ratePerHour, d.nowS);
  if (!c) return undefined;
  const warned = d.state.get<BudgetWarned>(BUDGET_WARNED_KEY);
  const level = levelToWarn(c, warned);
  if (level === undefined) return undefined;
  const levels = warned?.month === c.month ? warned.levels : [];
  await d.state.update(BUDGET_WARNED_KEY, { month: c.month, levels: [...levels, level] } satisfies BudgetWarned);
  // A list that repeats a row (a paging glitch) offers that instance once.
  const offered = level === 100 && d.onExceeded === 'stopGuarded' ? [...new Map(guardedRunning(d.instances()).map((i) => [i.id, i])).values()] : [];
  const stopLabel = stopGuardedLabel(offered.length);
  const SHOW_SPENDING = showSpendingLabel();
  const STOP_ALL_RUNNING = stopAllRunningLabel();
  const buttons = [...(offered.length ? [stopLabel] : []), SHOW_SPENDING, ...(level === 100 && !offered.length ? [STOP_ALL_RUNNING] : [])];
  const a = await d.prompts.warn(budgetMessage(c, d.ratePerHour, d.rateAsOf), buttons);
  if (a === SHOW_SPENDING) {
    d.showSpending();
    return { level, action: 'spending' };
  }
  if (a === STOP_ALL_RUNNING && buttons.includes(STOP_ALL_RUNNING)) {
    d.stopAllRunning();
    return { level, action: 'none' };
  }
  if (a !== stopLabel || !offered.length) return { level, action: 'none' };
  if (!(await d.prompts.confirmStop(offered.map(d.name)))) return { level, action: 'declined' };
  const stopped: number[] = [];
  for (const id of stopTargets(offered, d.instances())) {
    await d.stop(id);
    stopped.push(id);
  }
  return { level, action: 'stopped', stopped };
}

/**
 * The ids to stop: those offered (and agreed to) that are, in the list as it is now, still
 * ours (listed), running and guarded.
 */
export function stopTargets(offered: readonly Instance[], now: readonly Instance[]): number[] {
  const still = new Set(guardedRunning(now).map((i) => i.id));
  return offered.map((i) => i.id).filter((id) => still.has(id));
}
