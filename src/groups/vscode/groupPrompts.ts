// The group flow's two questions as VS Code dialogs: which cluster (cheapest total first, each
// with its total $/h), and one confirmation of the whole group, all or none, with its total.
import * as vscode from 'vscode';
import { formatRate } from '../../core/rates';
import type { Template } from '../../create/templateSchema';
import type { ClusterChoice } from '../clusterPick';
import type { GroupPrompts } from '../groupTypes';

export const RENT_GROUP = 'Rent Group';

export function clusterLabel(c: ClusterChoice): string {
  const o = c.offers[0]!;
  return `Cluster ${c.clusterId}: ${c.offers.length} × ${o.num_gpus}× ${o.gpu_name}`;
}

export function vscodeGroupPrompts(): GroupPrompts {
  return {
    async pickCluster(choices: readonly ClusterChoice[], t: Template) {
      const pick = await vscode.window.showQuickPick(
        choices.map((c, i) => ({
          label: clusterLabel(c),
          description: `${formatRate(c.totalDph, 2)} in total${i === 0 ? ' · cheapest' : ''}`,
          detail: `${c.offers.map((o) => formatRate(o.dph_total, 3)).join(' + ')}${c.offers[0]!.geolocation ? ` · ${c.offers[0]!.geolocation}` : ''}`,
          choice: c,
        })),
        { title: `"${t.name}": ${choices.length} physical cluster(s) fit ${t.count} machines (cheapest total first)`, ignoreFocusOut: true },
      );
      return pick?.choice;
    },
    async confirmGroup(c: ClusterChoice, t: Template, maxWaitMs: number) {
      const answer = await vscode.window.showWarningMessage(
        `Rent ${c.offers.length} machines for "${t.name}" at ${formatRate(c.totalDph, 2)} in total?`,
        {
          modal: true,
          detail: `${clusterLabel(c)}, on one private network.\nAll or none: if not all ${c.offers.length} run within ${Math.round(maxWaitMs / 60_000)} minutes, the ones rented are destroyed and nothing is left billing.\nBilling starts now and continues until you destroy the group (disks are billed while stopped).`,
        },
        RENT_GROUP,
      );
      return answer === RENT_GROUP;
    },
  };
}
