// Wires the entry sync to the instance store, the connection and the settings.
import type { Services } from '../../model/services';
import type { Disposable } from '../../model/events';
import { startEntrySync } from '../../ssh/entrySync';
import { recordedSshOptions, sshSettings } from './settings';

export function startSshSync(services: Services): Disposable {
  return startEntrySync({
    instances: services.instances as typeof services.instances & { loaded?: boolean },
    enabled: () => sshSettings().manageConfig && services.connection().signedIn,
    // dist/ssh.js loads at the first reconcile after the list has loaded (startup clean-up).
    writer: async () => (await import('./lazy')).createWriter(services),
    registered: () => recordedSshOptions(services),
    log: services.log,
  });
}
