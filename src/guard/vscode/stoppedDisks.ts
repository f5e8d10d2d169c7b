// gpuRental.guard.destroyAfterStoppedDays in VS Code (the decisions are in ../stoppedDays.ts): on
// each instance list, a warning a day before (Keep, Destroy Now…; several in one list: one
// notification whose Review… offers both per instance), and at the end the destroy,
// after a fresh read shows the instance still stopped, then one notice of what it saves. The
// setting is the user's standing consent (its description says so), read from user settings only;
// an instance rented from a template with guard.destroyAfterStoppedDays carries its own value.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { Instance } from '../../api/types';
import { userOnly } from '../../core/userOnlySettings';
import { currentRate, formatMoney, formatRate } from '../../core/rates';
import { instanceName } from '../../core/instanceWords';
import { background } from '../../core/background';
import { showReviewNotice, someNames } from '../../core/vscode/reviewNotice';
import { stoppedSinceKey } from '../../core/stateKeys';
import { DAY_MS, keep, planStopped, stoppedDaysFor, stoppedDaysSetting, type StoppedRecords } from '../stoppedDays';

export const KEEP = 'Keep';
const DESTROY_NOW = 'Destroy Now…';
const HOURS_PER_MONTH = 730;

/** Whose value it is: the user's setting, or the instance's own from its template (agreed to at Rent). */
function whose(own: boolean): string {
  return own ? "its template's guard.destroyAfterStoppedDays" : 'your setting gpuRental.guard.destroyAfterStoppedDays';
}

export function stoppedWarningText(inst: Instance, days: number, at: number, stoppedMs: number, own = false): string {
  const rate = currentRate(inst);
  const bills = rate > 0 ? ` Its disk still bills ${formatRate(rate, 3)} (${formatMoney(rate * HOURS_PER_MONTH)} a month).` : '';
  return `${instanceName(inst)} has been stopped for ${stoppedMs >= DAY_MS ? `${Math.floor(stoppedMs / DAY_MS)} day${stoppedMs >= 2 * DAY_MS ? 's' : ''}` : 'less than a day'}.${bills} GPU Rental destroys it ${new Date(at).toLocaleString()} (in about a day), with its disk and all data on it, as ${whose(own)} (${days}) says${own ? ' (agreed to when it was rented)' : ''}. Keep it to wait another ${days} day${days === 1 ? '' : 's'}.`;
}

const stateKey = (services: Pick<Services, 'connection'>): string => stoppedSinceKey(services.connection());

export function startStoppedDisks(
  services: Pick<Services, 'api' | 'connection' | 'globalState' | 'instances' | 'log' | 'track'>,
  now: () => number = Date.now,
): void {
  let running = false;
  const look = async (): Promise<void> => {
    const c = services.connection();
    if (running || !c.signedIn || !services.instances.loaded) return;
    running = true;
    try {
      const setting = stoppedDaysSetting(userOnly(vscode.workspace.getConfiguration('gpuRental').inspect<number>('guard.destroyAfterStoppedDays')));
      const key = stateKey(services);
      const records = services.globalState.get<StoppedRecords>(key) ?? {};
      const plan = planStopped(services.instances.instances, records, setting, now());
      if (JSON.stringify(plan.records) !== JSON.stringify(records)) await services.globalState.update(key, plan.records);
      if (plan.warn.length === 1) warn(services, key, plan.warn[0]!.inst, setting, plan.warn[0]!.destroyAt, plan.warn[0]!.stoppedMs, now);
      else if (plan.warn.length > 1) warnMany(services, key, plan.warn, setting, now);
      for (const inst of plan.destroy) await destroy(services, key, inst, setting, now);
    } finally {
      running = false;
    }
  };
  services.track(services.instances.onDidChange(() => background(look(), services.log, 'checking stopped instances')));
  // Loaded (guardWarnings.ts) on the list change that showed a reason to look: look at it now.
  background(look(), services.log, 'checking stopped instances');
}

const keepIt = (services: Pick<Services, 'globalState'>, key: string, id: number, now: () => number): Thenable<void> =>
  services.globalState.update(key, keep(services.globalState.get<StoppedRecords>(key) ?? {}, id, now()));

function warn(
  services: Pick<Services, 'globalState' | 'log'>,
  key: string,
  inst: Instance,
  setting: number,
  at: number,
  stoppedMs: number,
  now: () => number,
): void {
  const { days, own } = stoppedDaysFor(inst, setting);
  services.log.info(`guard: instance ${inst.id} stopped long enough to be destroyed at ${new Date(at).toISOString()} (destroyAfterStoppedDays ${days})`);
  background(
    vscode.window.showWarningMessage(stoppedWarningText(inst, days, at, stoppedMs, own), KEEP, DESTROY_NOW).then(async (pick) => {
      if (pick === KEEP) await keepIt(services, key, inst.id, now);
      else if (pick === DESTROY_NOW) await vscode.commands.executeCommand('gpuRental.destroyInstance', inst.id);
    }),
    services.log,
    'the stopped-instance warning',
  );
}

/** Several warnings from one list: one notification, whose Review… offers Keep / Destroy Now… per instance. */
function warnMany(
  services: Pick<Services, 'globalState' | 'log'>,
  key: string,
  warns: ReadonlyArray<{ inst: Instance; destroyAt: number; stoppedMs: number }>,
  setting: number,
  now: () => number,
): void {
  for (const w of warns) services.log.info(`guard: instance ${w.inst.id} stopped long enough to be destroyed at ${new Date(w.destroyAt).toISOString()}`);
  background(
    showReviewNotice({
      message: vscode.l10n.t(
        '{0} stopped instances will be destroyed in about a day, with their disks and all data on them ({1}). Review them to keep one.',
        warns.length,
        someNames(warns.map((w) => instanceName(w.inst))),
      ),
      title: vscode.l10n.t('Stopped Instances to Be Destroyed'),
      items: warns.map((w) => ({
        name: instanceName(w.inst),
        detail: stoppedWarningText(w.inst, stoppedDaysFor(w.inst, setting).days, w.destroyAt, w.stoppedMs, stoppedDaysFor(w.inst, setting).own),
        actions: [
          { label: KEEP, run: () => keepIt(services, key, w.inst.id, now) },
          { label: DESTROY_NOW, run: () => vscode.commands.executeCommand('gpuRental.destroyInstance', w.inst.id) },
        ],
      })),
    }),
    services.log,
    'the stopped-instances warning',
  );
}

async function destroy(
  services: Pick<Services, 'api' | 'globalState' | 'log'>,
  key: string,
  inst: Instance,
  setting: number,
  now: () => number,
): Promise<void> {
  const { days, own } = stoppedDaysFor(inst, setting);
  // A fresh read, not the list: started (or changed) since, it is not destroyed.
  const fresh = await (await services.api()).showInstance(inst.id);
  if (fresh.state !== 'stopped') {
    await keepIt(services, key, inst.id, now);
    return;
  }
  const ok = await vscode.commands.executeCommand<boolean>('gpuRental.destroyInstance', { id: inst.id, skipConfirmation: true });
  if (!ok) return;
  const rate = currentRate(fresh);
  services.log.info(`guard: destroyed instance ${inst.id}, stopped over ${days} days (destroyAfterStoppedDays)`);
  vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental destroyed {0}: it stayed stopped for {1} day{2} ({3}).{4}',
      instanceName(inst),
      days,
      days === 1 ? '' : 's',
      whose(own),
      rate > 0 ? ` That saves ${formatRate(rate, 3)} of storage (${formatMoney(rate * HOURS_PER_MONTH)} a month).` : '',
    ),
  );
}
