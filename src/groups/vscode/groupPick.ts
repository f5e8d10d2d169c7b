// Which group a command acts on: the one named, the only one, or the user's pick.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { formatRate } from '../../core/rates';
import type { GroupRecord } from '../groupRecords';
import { groupsOf } from './groupWatch';
import { CommandFailure } from '../../core/vscode/commandFailure';
import { tellNothing } from '../../core/vscode/statusMessage';

export function groupTotal(g: GroupRecord): number {
  return g.members.reduce((s, m) => s + m.dphTotal, 0);
}

/** The group to act on; undefined when there is none or the user cancelled; throws when the named one does not exist. */
export async function pickGroup(services: Services, name: string | undefined, title: string): Promise<GroupRecord | undefined> {
  const all = groupsOf(services);
  if (name !== undefined) {
    const g = all.find((x) => x.name === name);
    if (!g) throw new CommandFailure(vscode.l10n.t('There is no group "{0}" (it may have been destroyed). See the Instances view.', name));
    return g;
  }
  // Nothing to act on (the Instances view shows no group): a status bar line, not a notification.
  if (!all.length) {
    tellNothing(vscode.l10n.t('There is no group of machines. Create one from a template with "count" of 2 or more.'));
    return undefined;
  }
  if (all.length === 1) return all[0];
  const pick = await vscode.window.showQuickPick(
    all.map((g) => ({ label: g.name, description: vscode.l10n.t('{0} machines · {1} · {2}', g.count, formatRate(groupTotal(g), 2), g.status), g })),
    { title, ignoreFocusOut: true },
  );
  return pick?.g;
}
