import * as vscode from 'vscode';
// gpuRental.setupSshConfig: asks (again, even after "Not Now") to add the Include line, so that
// Remote-SSH lists GPU Rental's hosts.
import type { Services } from '../../../core/vscode/services';
import { tellDone } from '../../../core/vscode/statusMessage';
import type { IncludeStatus } from '../../userConfig';

export async function setupSshConfig(
  services: Pick<Services, 'connection' | 'globalState' | 'log' | 'onDidChangeConnection' | 'track'>,
): Promise<IncludeStatus> {
  const { createWriter, ensureInclude } = await import('../sshHost');
  const status = await ensureInclude(services, createWriter(services), true, true);
  if (status.state === 'present') {
    tellDone(vscode.l10n.t("Your SSH config ({0}) includes GPU Rental's hosts; Remote-SSH lists them after their instances are running.", status.userConfig));
  }
  return status;
}
