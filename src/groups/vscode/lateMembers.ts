// Watches the late members of given-up groups (src/groups/groupLate.ts) in the background, once
// per member however often it is started, and tells of each that appears: destroyed with its
// unwinding group, or kept under its failed group (with Destroy Group at hand).
import * as vscode from 'vscode';
import type { ServiceApi } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { background } from '../../core/background';
import { realClock } from '../../create/flowTypes';
import { lateMembers, watchLateMembers, type LateMember } from '../groupLate';
import type { GroupRecord } from '../groupRecords';

/** The labels being watched now (one watcher per rental). */
const watching = new Set<string>();

export async function watchLateGroupMembers(services: Pick<Services, 'globalState' | 'instances' | 'log' | 'track'>, api: ServiceApi): Promise<void> {
  const labels = lateMembers(services.globalState)
    .map((x) => x.record.label)
    .filter((l) => !watching.has(l));
  if (!labels.length) return;
  labels.forEach((l) => watching.add(l));
  const ac = new AbortController();
  services.track({ dispose: () => ac.abort() });
  try {
    await watchLateMembers(
      { api, log: services.log, state: services.globalState, instances: services.instances, clock: realClock },
      { signal: ac.signal, only: labels, onSettled: (g, m) => notify(services, g, m) },
    );
  } finally {
    labels.forEach((l) => watching.delete(l));
  }
}

function notify(services: Pick<Services, 'log'>, g: GroupRecord, m: Extract<LateMember, { instance: unknown }>): void {
  const id = m.instance.id;
  if (m.outcome === 'destroyed') {
    vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Group "{0}": instance {1} (rank {2}) appeared after the group was given up, and was destroyed: all or none, as agreed.',
        g.name,
        id,
        m.rank,
      ),
    );
    return;
  }
  const text = m.destroyFailed
    ? vscode.l10n.t(
        'Group "{0}": instance {1} (rank {2}) appeared after the group was given up and could not be destroyed. It is billing, under the group in the Instances view.',
        g.name,
        id,
        m.rank,
      )
    : vscode.l10n.t(
        'Group "{0}": instance {1} (rank {2}) appeared late. It is billing, under the group in the Instances view, until you destroy the group.',
        g.name,
        id,
        m.rank,
      );
  background(
    vscode.window.showWarningMessage(text, vscode.l10n.t('Destroy Group')).then((c) => {
      if (c) background(vscode.commands.executeCommand('gpuRental.destroyGroup', { group: g.name }), services.log, 'opening Destroy Group');
    }),
    services.log,
    'the late member notice',
  );
}
