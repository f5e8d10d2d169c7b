// Budget warnings at 80 % and 100 % of gpuRental.budget.monthly, once per level and month, from
// the service's charges; the decisions and the stop action are src/billing/budgetAction.ts, the
// prompts and commands are VS Code's here.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { Spending } from '../spending';
import { budgetAction, type BudgetOutcome } from '../budgetAction';
import { instanceName } from '../../core/instanceWords';
import { background } from '../../core/background';
import { asOfText } from '../../core/rates';

/** Checks the budget against `s`; shows at most one warning. Resolves when the user answered. */
export async function checkBudgetNow(
  services: Pick<Services, 'connection' | 'credit' | 'globalState' | 'instances' | 'log' | 'settings'>,
  s: Spending | undefined,
): Promise<BudgetOutcome> {
  const { monthly, onExceeded } = services.settings().budget;
  if (!s || !(monthly > 0) || !services.connection().signedIn) return undefined;
  const rate = services.credit.rate(services.instances.instances);
  return budgetAction({
    monthly,
    onExceeded,
    spent: s.month,
    // The service's burn rate where it answers (stopped disks and volumes included), else computed:
    // the status bar's figure, from the same read, with when it was read.
    ratePerHour: rate.perHour,
    ...(rate.at !== undefined ? { rateAsOf: asOfText(rate.at) } : {}),
    nowS: Date.now() / 1000,
    state: services.globalState,
    instances: () => services.instances.instances,
    name: instanceName,
    stop: (id) => Promise.resolve(vscode.commands.executeCommand('gpuRental.stopInstance', id)),
    showSpending: () => background(vscode.commands.executeCommand('gpuRental.showSpending'), services.log, 'opening Spending'),
    stopAllRunning: () => background(vscode.commands.executeCommand('gpuRental.stopAllRunning'), services.log, 'running Stop All Running'),
    prompts: {
      // An error toast with buttons: the one kind VS Code keeps on screen until dismissed (a
      // warning hides itself after a few seconds); the cost item in the status bar is coloured too.
      warn: async (message, buttons) => vscode.window.showErrorMessage(message, ...buttons),
      confirmStop: async (names) =>
        (await vscode.window.showWarningMessage(
          vscode.l10n.t('Stop {0} instance{1} with an idle guard?', names.length, names.length === 1 ? '' : 's'),
          {
            modal: true,
            detail: vscode.l10n.t(
              '{0}\n\nYour monthly budget is reached. Stopped instances keep their disk (and keep billing for storage) and can be started again.',
              names.join(', '),
            ),
          },
          vscode.l10n.t('Stop'),
        )) === vscode.l10n.t('Stop'),
    },
  });
}
