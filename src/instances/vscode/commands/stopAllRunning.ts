// gpuRental.stopAllRunning: offered by the low-credit warning, and in the palette.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { currentRate, formatRate, isBilledForCompute } from '../../../core/rates';
import { instanceName } from '../../../core/instanceWords';
import { stopOneInstance } from '../setInstanceState';
import { tellNothing } from '../../../core/vscode/statusMessage';
import { CommandFailure, SHOW_OUTPUT_LOG, failureOf } from '../../../core/vscode/commandFailure';

/** Stops every instance billed for compute, after one modal confirmation; resolves to how many stopped. */
export async function stopAllRunning(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>): Promise<number> {
  const running = services.instances.instances.filter(isBilledForCompute);
  if (!running.length) {
    tellNothing(vscode.l10n.t('Nothing is running.'));
    return 0;
  }
  const total = running.reduce((sum, i) => sum + currentRate(i), 0);
  const ok = await vscode.window.showWarningMessage(
    vscode.l10n.t('Stop {0} running instance{1} ({2})?', running.length, running.length === 1 ? '' : 's', formatRate(total)),
    { modal: true, detail: running.map((i) => `${instanceName(i)} (#${i.id})`).join(', ') + '\nDisks are kept (storage is still billed).' },
    vscode.l10n.t('Stop All'),
  );
  if (ok !== vscode.l10n.t('Stop All')) return 0;
  // Every stop is tried; the ones that failed are told in one notice (the reporter's), not one each.
  let stopped = 0;
  const failed: string[] = [];
  for (const i of running) {
    try {
      if (await stopOneInstance(services, i.id)) stopped++;
    } catch (e) {
      failed.push(failureOf(e).message);
    }
  }
  if (failed.length) throw new CommandFailure(failed.join(' '), [SHOW_OUTPUT_LOG()]);
  return stopped;
}
