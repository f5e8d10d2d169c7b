// Budget warnings at 80 % and 100 % of gpuRental.budget.monthly, once per level and month, from
// the service's charges; at 100 % with budget.onExceeded = stopGuarded, an offer to stop the
// running instances that have an idle guard, asked first.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { Spending } from '../spending';
import { budgetMessage, checkBudget, guardedRunning, levelToWarn, type BudgetWarned } from '../budget';
import { instanceName } from '../../instances/instanceViewModel';
import { background } from '../../core/background';

export const BUDGET_WARNED_KEY = 'gpuRental.budget.warned';

export type BudgetOutcome = { level: 80 | 100; action?: 'stopped' | 'declined' | 'spending' | 'none' } | undefined;

/** Checks the budget against `s`; shows at most one warning. Resolves when the user answered. */
export async function checkBudgetNow(services: Services, s: Spending | undefined): Promise<BudgetOutcome> {
  const { monthly, onExceeded } = services.settings().budget;
  if (!s || !(monthly > 0) || !services.connection().signedIn) return undefined;
  const instances = services.instances.instances;
  // The service's burn rate where it answers (stopped disks and volumes included), else computed.
  const rate = services.credit.rate(instances).perHour;
  const c = checkBudget(monthly, s.month, rate, Date.now() / 1000);
  if (!c) return undefined;
  const warned = services.globalState.get<BudgetWarned>(BUDGET_WARNED_KEY);
  const level = levelToWarn(c, warned);
  if (level === undefined) return undefined;
  const levels = warned?.month === c.month ? warned.levels : [];
  await services.globalState.update(BUDGET_WARNED_KEY, { month: c.month, levels: [...levels, level] } satisfies BudgetWarned);
  const guarded = level === 100 && onExceeded === 'stopGuarded' ? guardedRunning(instances) : [];
  const stopLabel = `Stop ${guarded.length} Guarded Instance${guarded.length === 1 ? '' : 's'}…`;
  const buttons = [...(guarded.length ? [stopLabel] : []), 'Show Spending', ...(level === 100 && !guarded.length ? ['Stop All Running…'] : [])];
  const a = await vscode.window.showWarningMessage(budgetMessage(c, rate), ...buttons);
  if (a === 'Show Spending') {
    background(vscode.commands.executeCommand('gpuRental.showSpending'), services.log, 'opening Spending');
    return { level, action: 'spending' };
  }
  if (a === 'Stop All Running…') {
    background(vscode.commands.executeCommand('gpuRental.stopAllRunning'), services.log, 'running Stop All Running');
    return { level, action: 'none' };
  }
  if (a !== stopLabel) return { level, action: 'none' };
  const names = guarded.map(instanceName).join(', ');
  const ok = await vscode.window.showWarningMessage(
    `Stop ${guarded.length} instance${guarded.length === 1 ? '' : 's'} with an idle guard?`,
    { modal: true, detail: `${names}\n\nYour monthly budget is reached. Stopped instances keep their disk (and keep billing for storage) and can be started again.` },
    'Stop',
  );
  if (ok !== 'Stop') return { level, action: 'declined' };
  for (const i of guarded) await vscode.commands.executeCommand('gpuRental.stopInstance', i.id);
  return { level, action: 'stopped' };
}
