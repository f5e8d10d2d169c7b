// What the status bar counts: a group of machines (src/groups/, read through core/groupIndex) is
// one item with its total, never also its members one by one; the other instances as they are.
import type { Instance } from '../api/types';
import type { GroupSummary } from '../core/groupIndex';
import { currentRate, isBilledForCompute } from '../core/rates';
import * as l10n from '@vscode/l10n';

export interface CountedGroup {
  name: string;
  /** The members listed now (a member not listed, e.g. destroyed, is not counted). */
  members: Instance[];
  /** Members billed for compute (running, or on their way). */
  active: number;
  perHour: number;
}

export interface CountedItems {
  /** Instances in no group. */
  singles: Instance[];
  /** Groups with at least one member billed for compute. */
  activeGroups: CountedGroup[];
  /** Groups whose listed members are all stopped (storage only). */
  idleGroups: CountedGroup[];
}

/** Splits the list into groups (each member in at most one, the first that names it) and the rest. */
export function countItems(instances: readonly Instance[], groups: readonly GroupSummary[]): CountedItems {
  const byId = new Map(instances.map((i) => [i.id, i]));
  const taken = new Set<number>();
  const counted: CountedGroup[] = [];
  for (const g of groups) {
    const members = g.instanceIds.flatMap((id) => {
      const i = byId.get(id);
      if (!i || taken.has(id)) return [];
      taken.add(id);
      return [i];
    });
    if (!members.length) continue;
    counted.push({
      name: g.name,
      members,
      active: members.filter(isBilledForCompute).length,
      perHour: members.reduce((s, m) => s + currentRate(m), 0),
    });
  }
  return {
    singles: instances.filter((i) => !taken.has(i.id)),
    activeGroups: counted.filter((g) => g.active > 0),
    idleGroups: counted.filter((g) => g.active === 0),
  };
}

/** "2 running", "1 running · 1 group of 3", "2 groups (7 machines)": a group is one item. */
export function runningText(items: CountedItems): string {
  const singles = items.singles.filter((i) => i.state === 'running').length;
  const g = items.activeGroups;
  const machines = g.reduce((s, x) => s + x.members.length, 0);
  const groups = g.length === 0 ? '' : g.length === 1 ? l10n.t('1 group of {0}', machines) : l10n.t('{0} groups ({1} machines)', g.length, machines);
  if (!groups) return `${singles} running`;
  return singles ? `${singles} running · ${groups}` : groups;
}
