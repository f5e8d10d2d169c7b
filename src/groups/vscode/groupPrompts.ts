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
          description: vscode.l10n.t('{0} in total{1}', formatRate(c.totalDph, 2), i === 0 ? ' · cheapest' : ''),
          detail: `${c.offers.map((o) => formatRate(o.dph_total, 3)).join(' + ')}${c.offers[0]!.geolocation ? ` · ${c.offers[0]!.geolocation}` : ''}`,
          choice: c,
        })),
        {
          title: vscode.l10n.t('"{0}": {1} physical cluster(s) fit {2} machines (cheapest total first)', t.name, choices.length, String(t.count)),
          ignoreFocusOut: true,
        },
      );
      return pick?.choice;
    },
    async confirmGroup(c: ClusterChoice, t: Template, maxWaitMs: number, guard?: string) {
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('Rent {0} machines for "{1}" at {2} in total?', c.offers.length, t.name, formatRate(c.totalDph, 2)),
        {
          modal: true,
          detail:
            vscode.l10n.t(
              '{0}, on one private network.\nAll or none: if not all {1} run within {2} minutes, the ones rented are destroyed and nothing is left billing.\nBilling starts now and continues until you destroy the group (disks are billed while stopped).',
              clusterLabel(c),
              c.offers.length,
              Math.round(maxWaitMs / 60_000),
            ) + (guard ? `\n${guard}` : ''),
        },
        RENT_GROUP,
      );
      return answer === RENT_GROUP;
    },
  };
}
