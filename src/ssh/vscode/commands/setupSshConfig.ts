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
    tellDone(`Your SSH config (${status.userConfig}) includes GPU Rental's hosts; Remote-SSH lists them after their instances are running.`);
  }
  return status;
}
