import * as vscode from 'vscode';
import { CommandFailure } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { instanceName, isJupyter, stateCategory } from '../../../core/instanceWords';
import { jupyterUrl } from '../../instanceViewModel';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { fullRecord } from '../../fullRecord';

/** Opens http://public_ipaddr:<mapped 8080>/?token=… in the browser; the URL is never logged. */
export async function openJupyter(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log'>, arg?: unknown): Promise<boolean> {
  const row = await resolveInstance(services, arg, (i) => stateCategory(i) === 'running' && isJupyter(i), {
    verb: 'Open Jupyter',
    none: 'No running Jupyter instance. Create one with a Jupyter runtype (jupyter_direct) and try again.',
  });
  if (!row) return false;
  // The token is not among the list's columns: read the full record.
  const inst = await fullRecord(() => services.api(), row, services.log);
  const url = jupyterUrl(inst);
  if (!url) {
    throw new CommandFailure(
      vscode.l10n.t(
        '"{0}" has no direct Jupyter address yet (needs a running jupyter_direct instance with port 8080 mapped). Wait until it is running, or copy the SSH command instead.',
        instanceName(inst),
      ),
    );
  }
  services.log.info(`Opening Jupyter of instance #${inst.id}`);
  return vscode.env.openExternal(vscode.Uri.parse(url, true));
}
