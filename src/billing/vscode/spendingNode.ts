// The Account view's Spending node: today, this week, this month and the last 30 days from the
// service's charges; an estimate (said so) only when the charges cannot be read.
import type { Services } from '../../core/vscode/services';
import type { AccountRow } from '../../core/accountRow';
import { formatMoney } from '../../core/rates';
import { billingSession } from './billingSession';

export async function spendingNode(
  services: Pick<
    Services,
    | 'api'
    | 'connection'
    | 'connectionState'
    | 'costs'
    | 'credit'
    | 'globalState'
    | 'instanceGone'
    | 'instances'
    | 'log'
    | 'marks'
    | 'onDidChangeConnection'
    | 'settings'
    | 'track'
  >,
): Promise<AccountRow> {
  const store = billingSession(services).spending;
  const s = await store.maybeRefresh();
  const base = { id: 'account:spending', label: 'Spending', icon: 'graph', contextValue: 'spending', command: 'gpuRental.showSpending' };
  if (!s) {
    const estimate = services.costs.today();
    return {
      ...base,
      description: 'charges unavailable',
      tooltip: `The service's charges could not be read${store.error ? `: ${store.error}` : ''}.`,
      children: estimate ? [{ id: 'account:spending:estimate', label: estimate.includes('estimate') ? estimate : `${estimate} (estimate)`, icon: 'info' }] : [],
    };
  }
  // Only the Spending row opens the chart on a click; a period's row has it in its context menu.
  const row = (key: string, label: string, v: number) => ({
    id: `account:spending:${key}`,
    label,
    description: formatMoney(v),
    icon: 'calendar',
    contextValue: 'spendingPeriod',
  });
  return {
    ...base,
    description: `${formatMoney(s.last30)} in the last 30 days`,
    tooltip: "From the service's charges (UTC days). Click for the chart; export to CSV from there or the Command Palette.",
    children: [row('today', 'Today', s.today), row('week', 'This week', s.week), row('month', 'This month', s.month), row('last30', 'Last 30 days', s.last30)],
  };
}
