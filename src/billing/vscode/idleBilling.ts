// Stopped machines that still bill (row mark + a weekly reminder), outbid instances and contracts
// ending within 48 h: one notification per kind, whose Review… offers each instance's actions
// (Destroy… / Keep, Change Bid… / Destroy…, Connect / Show Details).
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { InstanceMark } from '../../core/instanceMarks';
import { instanceName } from '../../core/instanceWords';
import { contractEndMessage, contractsEndingSoon, newlyOutbid, reminderDue, staleMark, staleStopped } from '../stoppedStorage';
import type { Spending } from '../spending';
import { showReviewNotice, someNames } from '../../core/vscode/reviewNotice';
import { formatMoney } from '../../core/rates';
import { KEEP_STOPPED_KEY, STORAGE_REMINDER_KEY, STORAGE_REMINDER_OFF_KEY, TOLD_CONTRACT_END_KEY, TOLD_OUTBID_KEY } from '../../core/stateKeys';

function storageFromCharges(s: Spending | undefined): (id: number) => number | undefined {
  return (id) => {
    return s?.storageByInstance.get(id);
  };
}

const ids = (services: Pick<Services, 'globalState'>, key: string): number[] => services.globalState.get<number[]>(key) ?? [];
const remember = (services: Pick<Services, 'globalState'>, key: string, add: number[]): Thenable<void> =>
  services.globalState.update(key, [...new Set([...ids(services, key), ...add])].slice(-500));

/** Runs after every list walk. Resolves once every notification it showed was answered (tests). */
export async function checkIdleBilling(
  services: Pick<Services, 'connection' | 'globalState' | 'instances' | 'marks' | 'settings'>,
  spending: Spending | undefined,
): Promise<void> {
  if (!services.connection().signedIn || !services.instances.loaded || deciding.has(services)) return;
  deciding.add(services);
  let shown: Array<Thenable<unknown>> = [];
  try {
    shown = await decide(services, spending);
  } finally {
    deciding.delete(services);
  }
  await Promise.all(shown);
}

/** A check between reading what was told and remembering it: the next list walk waits its turn. */
const deciding = new WeakSet<object>();

async function decide(
  services: Pick<Services, 'globalState' | 'instances' | 'marks' | 'settings'>,
  spending: Spending | undefined,
): Promise<Array<Thenable<unknown>>> {
  const instances = services.instances.instances;
  const nowS = Date.now() / 1000;
  const stale = staleStopped(instances, services.settings().stoppedStorageDays, nowS, storageFromCharges(spending));
  services.marks.set('stoppedStorage', new Map<number, InstanceMark>(stale.map((s) => [s.inst.id, staleMark(s)])));
  const shown: Array<Thenable<unknown>> = [];

  const kept = new Set(ids(services, KEEP_STOPPED_KEY));
  const remind = stale.filter((s) => !kept.has(s.inst.id));
  if (
    remind.length &&
    !services.globalState.get<boolean>(STORAGE_REMINDER_OFF_KEY) &&
    reminderDue(services.globalState.get<number>(STORAGE_REMINDER_KEY), Date.now())
  ) {
    await services.globalState.update(STORAGE_REMINDER_KEY, Date.now());
    const perMonth = remind.reduce((t, s) => t + s.perMonth, 0);
    shown.push(
      showReviewNotice({
        message:
          remind.length === 1
            ? `${instanceName(remind[0]!.inst)} is stopped but still bills for storage (${staleMark(remind[0]!).text}).`
            : `${remind.length} stopped instances still bill for storage, ${formatMoney(perMonth)} a month in all (${someNames(remind.map((s) => instanceName(s.inst)))}).`,
        title: vscode.l10n.t('Stopped Instances That Bill for Storage'),
        items: remind.map((s) => ({
          name: instanceName(s.inst),
          detail: staleMark(s).text,
          actions: [
            { label: vscode.l10n.t('Destroy…'), run: () => vscode.commands.executeCommand('gpuRental.destroyInstance', s.inst.id) }, // confirms
            { label: vscode.l10n.t('Keep (no more reminders for it)'), run: () => remember(services, KEEP_STOPPED_KEY, [s.inst.id]) },
          ],
        })),
        dontShowAgain: () => services.globalState.update(STORAGE_REMINDER_OFF_KEY, true),
      }),
    );
  }

  const outbid = newlyOutbid(instances, new Set(ids(services, TOLD_OUTBID_KEY)));
  if (outbid.length) {
    await remember(
      services,
      TOLD_OUTBID_KEY,
      outbid.map((i) => i.id),
    );
    shown.push(
      showReviewNotice({
        message:
          outbid.length === 1
            ? `${instanceName(outbid[0]!)} was outbid: the service stopped it because another renter bid more. Raise the bid to run it again.`
            : `${outbid.length} instances were outbid (${someNames(outbid.map(instanceName))}): the service stopped them because other renters bid more. Raise a bid to run one again.`,
        title: vscode.l10n.t('Outbid Instances'),
        items: outbid.map((i) => ({
          name: instanceName(i),
          detail: vscode.l10n.t('#{0}: stopped by the service (outbid)', i.id),
          actions: [
            { label: vscode.l10n.t('Change Bid…'), run: () => vscode.commands.executeCommand('gpuRental.changeBid', i.id) },
            { label: vscode.l10n.t('Destroy…'), run: () => vscode.commands.executeCommand('gpuRental.destroyInstance', i.id) },
          ],
        })),
      }),
    );
  }

  const ending = contractsEndingSoon(instances, nowS, new Set(ids(services, TOLD_CONTRACT_END_KEY)));
  if (ending.length) {
    await remember(
      services,
      TOLD_CONTRACT_END_KEY,
      ending.map((i) => i.id),
    );
    shown.push(
      showReviewNotice({
        message:
          ending.length === 1
            ? contractEndMessage(instanceName(ending[0]!), ending[0]!.end_date!, nowS)
            : `The host contracts of ${ending.length} instances end within 48 h (${someNames(ending.map(instanceName))}). Each machine is then taken back: save your work and data before then.`,
        title: vscode.l10n.t('Host Contracts Ending'),
        items: ending.map((i) => ({
          name: instanceName(i),
          detail: contractEndMessage(instanceName(i), i.end_date!, nowS),
          actions: [
            { label: vscode.l10n.t('Connect'), run: () => vscode.commands.executeCommand('gpuRental.connect', i.id) },
            { label: vscode.l10n.t('Show Details'), run: () => vscode.commands.executeCommand('gpuRental.showInstanceDetails', i.id) },
          ],
        })),
      }),
    );
  }
  return shown;
}
