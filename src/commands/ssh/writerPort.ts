// The SshEntryWriter the create flow uses: current settings, the per-instance options
// recorded, and the one-time question about the Include line.
import type { Instance } from '../../api/types';
import type { Services } from '../../model/services';
import { SshConfigError, type SshEntryWriter, type SshOptions } from '../../ssh';
import { createWriter, sshSettings } from './settings';
import { ensureInclude } from './include';

export function sshEntryWriterFor(services: Services): SshEntryWriter {
  return {
    async writeEntry(instance: Instance, ssh: SshOptions): Promise<string> {
      if (!sshSettings().manageConfig) {
        throw new SshConfigError('io', 'SSH config management is off (gpuRental.ssh.manageConfig), so no Remote-SSH entry was written. Use Copy SSH Command, or turn the setting on and connect.');
      }
      const writer = createWriter(services);
      const alias = await writer.writeEntry(instance, ssh);
      // Not awaited: the question is a notification that hides itself after a few seconds,
      // and waiting for its answer left the creation stuck at "Writing SSH entry" with a
      // running instance and no Connect offer until the user found it in the bell.
      void ensureInclude(services, writer, false).catch((e) => services.log.warn(`ssh: Include line: ${(e as Error).message}`));
      return alias;
    },
  };
}
