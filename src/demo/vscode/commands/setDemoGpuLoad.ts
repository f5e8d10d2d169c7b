// gpuRental.setDemoGpuLoad (an instance row, an id, or `{ instanceId, util }`): demo mode only.
// Sets what the simulated instance's fake GPU reports (Idle 0 %, Busy 90 %, or a typed
// percentage), so a newcomer sees the idle guard watch a busy GPU, warn once it is idle and stop
// the instance with its own key. A lazily loaded bundle.
import * as vscode from 'vscode';
import { CommandFailure, TRY_DEMO_MODE, failedTo } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { background } from '../../../core/background';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { instanceName } from '../../../core/instanceWords';
import { installedGuard } from '../../../guard/installed';
import { gpuLoadProblem } from '../../../api/demoApi';
import { LOAD_CHOICES, loadSetMessage, parseLoad } from '../../demoGpuLoad';

export interface DemoGpuLoadResult {
  instanceId: number;
  util: number;
}

async function askLoad(name: string): Promise<number | undefined> {
  const pick = await vscode.window.showQuickPick(
    LOAD_CHOICES.map((c) => ({ label: c.label, description: c.description, util: c.util })),
    {
      title: vscode.l10n.t('GPU Rental: Set Demo GPU Load of {0}', name),
      placeHolder: vscode.l10n.t('What should its GPU report? (the idle guard reads it with nvidia-smi)'),
    },
  );
  if (!pick) return undefined;
  if (pick.util !== undefined) return pick.util;
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Set Demo GPU Load of {0}', name),
    prompt: vscode.l10n.t('GPU utilisation in percent (0 to 100)'),
    placeHolder: vscode.l10n.t('e.g. 3 (idle) or 85 (busy)'),
    validateInput: (text) => {
      const r = parseLoad(text);
      return 'problem' in r ? r.problem : undefined;
    },
  });
  if (typed === undefined) return undefined;
  const r = parseLoad(typed);
  return 'util' in r ? r.util : undefined;
}

export async function setDemoGpuLoad(
  services: Pick<Services, 'api' | 'connection' | 'guard' | 'instances' | 'log'>,
  arg?: unknown,
): Promise<DemoGpuLoadResult | undefined> {
  if (!services.connection().demo) {
    throw new CommandFailure(
      vscode.l10n.t(
        'Set Demo GPU Load works in demo mode only: a real instance reports its real GPU. Run "GPU Rental: Try Demo Mode" to try the idle guard on a simulated machine.',
      ),
      [TRY_DEMO_MODE()],
    );
  }
  const given = arg && typeof arg === 'object' ? (arg as { util?: unknown }).util : undefined;
  if (given !== undefined && gpuLoadProblem(given)) {
    throw new CommandFailure(vscode.l10n.t('Set Demo GPU Load needs "util" as {0}.', String(gpuLoadProblem(given))));
  }
  const inst = await resolveInstance(services, arg, (i) => i.state === 'running', {
    verb: 'Set Demo GPU Load',
    none: "No running demo instance: rent one first (Create Instance from Template… or an offer's Rent), then set its GPU load.",
  });
  if (!inst) return undefined;
  const name = instanceName(inst);
  const util = (given as number | undefined) ?? (await askLoad(name));
  if (util === undefined) return undefined;
  try {
    await (await services.api()).setDemoGpuLoad(inst.id, util);
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not set the demo GPU load of {0}: {1}', name, why));
  }
  services.log.info(`demo: the GPU of instance ${inst.id} reports ${util} % now`);
  // The guard's next look sees it: read its view again then, not up to a minute later.
  services.guard.readSoon(inst.id);
  background(services.instances.refresh(), services.log, 'refreshing the instances');
  vscode.window.showInformationMessage(loadSetMessage(name, util, installedGuard(inst.onstart)));
  return { instanceId: inst.id, util };
}
