// gpuRental.stopAllRunning: offered by the low-credit warning, and in the palette.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { currentRate, formatRate, isBilledForCompute } from '../../../core/rates';
import { instanceName } from '../../../core/instanceWords';
import { stopOneInstance } from '../setInstanceState';

/** Stops every instance billed for compute, after one modal confirmation; resolves to how many stopped. */
export async function stopAllRunning(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>): Promise<number> {
  const running = services.instances.instances.filter(isBilledForCompute);
  if (!running.length) {
    vscode.window.showInformationMessage(vscode.l10n.t('Nothing is running.'));
    return 0;
  }
  const total = running.reduce((sum, i) => sum + currentRate(i), 0);
  const ok = await vscode.window.showWarningMessage(
    vscode.l10n.t('Stop {0} running instance{1} ({2})?', running.length, running.length === 1 ? '' : 's', formatRate(total)),
    { modal: true, detail: running.map((i) => `${instanceName(i)} (#${i.id})`).join(', ') + '\nDisks are kept (storage is still billed).' },
    vscode.l10n.t('Stop All'),
  );
  if (ok !== vscode.l10n.t('Stop All')) return 0;
  let stopped = 0;
  for (const i of running) if (await stopOneInstance(services, i.id)) stopped++;
  return stopped;
}
