// Stopped machines that still bill (row mark + weekly reminder with Destroy / Keep), outbid
// instances (one notification, Change Bid first) and contracts ending within 48 h (one warning).
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { InstanceMark } from '../../core/instanceMarks';
import { instanceName } from '../../core/instanceWords';
import { contractEndMessage, contractsEndingSoon, newlyOutbid, reminderDue, staleMark, staleStopped } from '../stoppedStorage';
import type { Spending } from '../spending';
import { KEEP_STOPPED_KEY, STORAGE_REMINDER_KEY, TOLD_CONTRACT_END_KEY, TOLD_OUTBID_KEY } from '../../core/stateKeys';

/** At most this many Destroy / Keep notifications at once; the rest are named in one more. */
const MAX_REMINDERS = 3;

function storageFromCharges(s: Spending | undefined): (id: number) => number | undefined {
  return (id) => {
    return s?.storageByInstance.get(id);
  };
}

const ids = (services: Pick<Services, 'globalState'>, key: string): number[] => services.globalState.get<number[]>(key) ?? [];
const remember = (services: Pick<Services, 'globalState'>, key: string, add: number[]): Thenable<void> => services.globalState.update(key, [...new Set([...ids(services, key), ...add])].slice(-500));

/** Runs after every list walk. Resolves once every notification it showed was answered (tests). */
export async function checkIdleBilling(services: Pick<Services, 'connection' | 'globalState' | 'instances' | 'marks' | 'settings'>, spending: Spending | undefined): Promise<void> {
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

async function decide(services: Pick<Services, 'globalState' | 'instances' | 'marks' | 'settings'>, spending: Spending | undefined): Promise<Array<Thenable<unknown>>> {
  const instances = services.instances.instances;
  const nowS = Date.now() / 1000;
  const stale = staleStopped(instances, services.settings().stoppedStorageDays, nowS, storageFromCharges(spending));
  services.marks.set('stoppedStorage', new Map<number, InstanceMark>(stale.map((s) => [s.inst.id, staleMark(s)])));
  const shown: Array<Thenable<unknown>> = [];

  const kept = new Set(ids(services, KEEP_STOPPED_KEY));
  const remind = stale.filter((s) => !kept.has(s.inst.id));
  if (remind.length && reminderDue(services.globalState.get<number>(STORAGE_REMINDER_KEY), Date.now())) {
    await services.globalState.update(STORAGE_REMINDER_KEY, Date.now());
    for (const s of remind.slice(0, MAX_REMINDERS)) {
      const m = staleMark(s);
      const name = instanceName(s.inst);
      shown.push(
        vscode.window.showWarningMessage(`GPU Rental: ${name} is stopped but still bills for storage (${m.text}).`, 'Destroy…', 'Keep').then(async (a) => {
          if (a === 'Destroy…') await vscode.commands.executeCommand('gpuRental.destroyInstance', s.inst.id); // confirms
          else if (a === 'Keep') await remember(services, KEEP_STOPPED_KEY, [s.inst.id]);
        }),
      );
    }
    if (remind.length > MAX_REMINDERS)
      shown.push(vscode.window.showWarningMessage(`GPU Rental: ${remind.length - MAX_REMINDERS} more stopped instances still bill for storage: ${remind.slice(MAX_REMINDERS).map((s) => instanceName(s.inst)).join(', ')}. They are marked in the Instances view.`));
  }

  const outbid = newlyOutbid(instances, new Set(ids(services, TOLD_OUTBID_KEY)));
  if (outbid.length) await remember(services, TOLD_OUTBID_KEY, outbid.map((i) => i.id));
  for (const i of outbid) {
    shown.push(
      vscode.window.showWarningMessage(`GPU Rental: ${instanceName(i)} was outbid: the service stopped it because another renter bid more. Raise the bid to run it again.`, 'Change Bid…', 'Destroy…').then(async (a) => {
        if (a === 'Change Bid…') await vscode.commands.executeCommand('gpuRental.changeBid', i.id);
        else if (a === 'Destroy…') await vscode.commands.executeCommand('gpuRental.destroyInstance', i.id);
      }),
    );
  }

  const ending = contractsEndingSoon(instances, nowS, new Set(ids(services, TOLD_CONTRACT_END_KEY)));
  if (ending.length) await remember(services, TOLD_CONTRACT_END_KEY, ending.map((i) => i.id));
  for (const i of ending) shown.push(vscode.window.showWarningMessage(contractEndMessage(instanceName(i), i.end_date!, nowS)));
  return shown;
}
