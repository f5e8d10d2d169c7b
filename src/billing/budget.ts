// The monthly budget: what the service has charged this month against gpuRental.budget.monthly,
// with the running rate projected to the month's end, warned about once per level and month.
import type { Instance } from '../api/types';
import { formatMoney, formatRate } from '../core/rates';
import { installedGuard } from '../guard/installed';
import { monthStart } from './spending';
import * as l10n from '@vscode/l10n';

export type BudgetLevel = 0 | 80 | 100;

export interface BudgetCheck {
  level: BudgetLevel;
  percent: number;
  spent: number;
  budget: number;
  /** This month's charges plus the current rate until the month ends. */
  projected: number;
  /** 'YYYY-MM' (UTC): warnings are remembered per month. */
  month: string;
}

export function nextMonthStart(now: number): number {
  const d = new Date(now * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

export function checkBudget(budget: number, spentThisMonth: number, ratePerHour: number, now: number): BudgetCheck | undefined {
  if (!(budget > 0)) return undefined;
  const hoursLeft = Math.max(0, (nextMonthStart(now) - now) / 3600);
  const percent = (spentThisMonth / budget) * 100;
  return {
    level: percent >= 100 ? 100 : percent >= 80 ? 80 : 0,
    percent,
    spent: spentThisMonth,
    budget,
    projected: spentThisMonth + Math.max(0, ratePerHour) * hoursLeft,
    month: new Date(monthStart(now) * 1000).toISOString().slice(0, 7),
  };
}

/** Remembered warnings: the month and the levels already shown in it. */
export interface BudgetWarned {
  month: string;
  levels: number[];
}

/** The level to warn about now, or undefined (already told this month, or below 80 %). */
export function levelToWarn(c: BudgetCheck, warned: BudgetWarned | undefined): 80 | 100 | undefined {
  if (c.level === 0) return undefined;
  const told = warned?.month === c.month ? warned.levels : [];
  return told.includes(c.level) ? undefined : c.level;
}

/** The warning; `asOf` ("as of 15:42") says when the rate was read (the status bar's tooltip shows the same read). */
export function budgetMessage(c: BudgetCheck, ratePerHour: number, asOf?: string): string {
  const head = c.level >= 100 ? l10n.t('You have reached your monthly budget') : l10n.t('You have used {0} % of your monthly budget', Math.floor(c.percent));
  return l10n.t(
    '{0} ({1} of {2} charged in {3}). At the current {4}{5} the month ends at about {6}.',
    head,
    formatMoney(c.spent),
    formatMoney(c.budget),
    c.month,
    formatRate(ratePerHour),
    asOf ? ` (${asOf})` : '',
    formatMoney(c.projected),
  );
}

/** Running instances with an idle guard installed: the ones the budget action may stop. */
export function guardedRunning(instances: readonly Instance[]): Instance[] {
  return instances.filter((i) => i.state === 'running' && installedGuard(i.onstart) !== undefined);
}
