// gpuRental.destroyGroup, gpuRental.stopGroup, gpuRental.startGroup: act on every member of a group
// at once, after one confirmation that names the group, its machines and its total $/h.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { CommandFailure, SHOW_OUTPUT_LOG, failedWith } from '../../../core/vscode/commandFailure';
import { tellDone } from '../../../core/vscode/statusMessage';
import { background } from '../../../core/background';
import { skipsConfirmation } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';
import { formatRate } from '../../../core/rates';
import { destroyGroup as destroyAll, setGroupState, type GroupActionPorts } from '../../groupActions';
import type { GroupRecord } from '../../groupRecords';
import { groupTotal, pickGroup } from '../groupPick';

export interface GroupCommandArgs {
  group?: string;
  /** No confirmation: only from `{ skipConfirmation: true }` with the user's consent to unattended calls. */
  unattended?: boolean;
}

/** A group row of the Instances view passes itself; scripts pass { group, skipConfirmation? }. */
function argsOf(services: Services, arg: unknown, what: string): GroupCommandArgs {
  if (arg && typeof arg === 'object') {
    const a = arg as { group?: unknown; name?: unknown };
    const group = typeof a.group === 'string' ? a.group : typeof a.name === 'string' ? a.name : undefined;
    return { ...(group !== undefined ? { group } : {}), ...(skipsConfirmation(consentOf(services), arg, what) ? { unattended: true } : {}) };
  }
  return typeof arg === 'string' ? { group: arg } : {};
}

/** The group actions' ports; no API (not signed in, …) throws for the command's reporter. */
async function ports(services: Services): Promise<GroupActionPorts> {
  return { api: await services.api(), log: services.log, state: services.globalState, instances: services.instances };
}

async function confirmed(g: GroupRecord, question: string, detail: string, yes: string, args: GroupCommandArgs): Promise<boolean> {
  if (args.unattended) return true;
  return (await vscode.window.showWarningMessage(question, { modal: true, detail }, yes)) === yes;
}

const ids = (g: GroupRecord) => g.members.flatMap((m) => (m.instanceId !== undefined ? [`${m.instanceId}`] : [])).join(', ');

export async function destroyGroup(services: Services, arg?: unknown): Promise<{ destroyed: number[]; kept: number[] } | undefined> {
  const args = argsOf(services, arg, 'Destroy Group');
  const g = await pickGroup(services, args.group, 'Destroy which group?');
  if (!g) return undefined;
  const total = formatRate(groupTotal(g), 2);
  if (
    !(await confirmed(
      g,
      `Destroy group "${g.name}": all ${g.members.length} machines (${total} in total)?`,
      `Instances ${ids(g)} and their disks are deleted, with everything on them, and the group's private network. This cannot be undone.`,
      'Destroy Group',
      args,
    ))
  )
    return undefined;
  const r = await destroyAll(await ports(services), g);
  // A failure goes to the command's reporter (with the result for scripts); a success is a status bar line (the view shows the group gone).
  if (r.kept.length)
    return failedWith(
      r,
      new CommandFailure(
        vscode.l10n.t(
          'Group "{0}": {1} could not be destroyed and {2} still billing. Try Destroy Group again, or destroy {3} from the Instances view.',
          g.name,
          r.kept.map((id) => `instance ${id}`).join(', '),
          r.kept.length === 1 ? 'is' : 'are',
          r.kept.length === 1 ? 'it' : 'them',
        ),
      ),
    );
  tellDone(vscode.l10n.t('Group "{0}" was destroyed ({1} machines); billing for it has stopped.', g.name, r.destroyed.length));
  return r;
}

async function setState(services: Services, arg: unknown, state: 'running' | 'stopped'): Promise<{ failed: number[] } | undefined> {
  const verb = state === 'stopped' ? 'Stop' : 'Start';
  const args = argsOf(services, arg, `${verb} Group`);
  const g = await pickGroup(services, args.group, `${verb} which group?`);
  if (!g) return undefined;
  const detail =
    state === 'stopped'
      ? `Instances ${ids(g)} stop: GPU billing ends, their disks are kept and still billed. A job running on them is interrupted.`
      : `Instances ${ids(g)} start again at ${formatRate(groupTotal(g), 2)} in total, if their machines are free (a stopped instance can lose its GPU to another renter).`;
  if (
    !(await confirmed(
      g,
      `${verb} group "${g.name}": all ${g.members.length} machines (${formatRate(groupTotal(g), 2)} in total)?`,
      detail,
      `${verb} Group`,
      args,
    ))
  )
    return undefined;
  const failed = await setGroupState(await ports(services), g, state);
  background(services.instances.refresh(), services.log, 'refreshing the instances');
  if (failed.length)
    return failedWith(
      { failed },
      new CommandFailure(
        vscode.l10n.t(
          'Group "{0}": {1} could not be {2}. See the GPU Rental log, and try again.',
          g.name,
          failed.map((id) => `instance ${id}`).join(', '),
          state === 'stopped' ? 'stopped' : 'started',
        ),
        [SHOW_OUTPUT_LOG()],
      ),
    );
  tellDone(vscode.l10n.t('Group "{0}": {1} all {2} machines.', g.name, state === 'stopped' ? 'stopping' : 'starting', g.members.length));
  return { failed };
}

export function stopGroup(services: Services, arg?: unknown): Promise<{ failed: number[] } | undefined> {
  return setState(services, arg, 'stopped');
}

export function startGroup(services: Services, arg?: unknown): Promise<{ failed: number[] } | undefined> {
  return setState(services, arg, 'running');
}
