// What a template with `count` of 2 or more (a group of machines, src/groups/) cannot also say:
// each rule is one diagnostic on the field that conflicts, saying what to change.
import type { JsonPath } from './jsonPath';
import * as l10n from '@vscode/l10n';

export interface GroupRuleProblem {
  path: JsonPath;
  message: string;
  severity: 'error';
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The rules for a raw template (before variables): none unless `count` is a number of 2 or more. */
export function groupRuleProblems(raw: unknown): GroupRuleProblem[] {
  const t = obj(raw);
  if (!t || typeof t.count !== 'number' || !(t.count >= 2)) return [];
  const out: GroupRuleProblem[] = [];
  const add = (path: JsonPath, message: string) => out.push({ path, message, severity: 'error' });
  const inst = obj(t.instance);
  const offer = obj(t.offer);
  if (inst?.vm === true)
    add(['instance', 'vm'], l10n.t('A group (count 2 or more) needs Docker instances: overlay networks do not take VMs. Remove "vm", or set "count": 1.'));
  if (inst?.runtype === 'args')
    add(
      ['instance', 'runtype'],
      l10n.t(
        'A group (count 2 or more) needs SSH on every machine (to read rank 0\'s address and write each rank\'s environment); runtype "args" has none. Use an ssh or jupyter runtype.',
      ),
    );
  if (inst?.target_state === 'stopped')
    add(['instance', 'target_state'], l10n.t('A group (count 2 or more) is ready only when every machine runs. Remove "target_state": "stopped".'));
  if (offer?.type === 'bid')
    add(
      ['offer', 'type'],
      l10n.t('A group (count 2 or more) rents on-demand only: an interruptible machine outbid mid-job would stall every other rank. Use "type": "on-demand".'),
    );
  for (const key of Object.keys(obj(inst?.env) ?? {}))
    if (key.trim().startsWith('-n ')) add(['instance', 'env', key], l10n.t('A group makes and joins its own private network; remove this "-n NETWORK" entry.'));
  return out;
}
