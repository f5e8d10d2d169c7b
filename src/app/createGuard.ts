// The idle guard's monitor (reading the watchdog's state file over SSH with the instance's
// managed entry) and the clean-up of per-instance records when their instance is gone.
import { readSettings } from '../core/vscode/settings';
import type { Services } from '../core/vscode/services';
import { GuardMonitor } from '../guard/monitor';
import { readGuardSettings } from '../guard/vscode/guardSettings';
import { sshGuardRemote } from '../guard/remote';
import { InstanceGone, idList, inFlightIds, recordsById } from '../instances/instanceGone';
import type { PolledInstanceStore } from '../instances/instanceStore';

import type { ServiceBase } from './serviceBase';
import { GUARD_NO_WARN_KEY, SSH_OPTIONS_STATE_KEY } from '../core/stateKeys';

/** `services` is asked for only by the monitor's reads, which start with the first poll, after Services exists. */
export function createGuardMonitor(base: ServiceBase, instances: PolledInstanceStore, services: () => Services): GuardMonitor {
  const guard = new GuardMonitor({
    instances,
    // The watchdog's state file, over SSH with the instance's managed entry (dist/sshHost.js loads on the first read).
    remote: sshGuardRemote({
      target: async (id) => {
        if (!readSettings().ssh.manageConfig) return undefined;
        const w = (await import('../ssh/vscode/sshHost')).createWriter(services());
        const e = await w.findEntry(id);
        return e ? { configPath: w.configPath, alias: e.alias } : undefined;
      },
      // What is read from the instance is shown in documents: the connection's keys never are.
      secrets: () => base.conn.knownSecrets(),
    }),
    defaults: readGuardSettings,
    state: base.globalState,
    log: base.log,
  });
  base.track(guard);
  return guard;
}

/** Per-instance records go with their instance: destroyed by us, or left out of two list reads. */
export function createInstanceGone(base: ServiceBase, instances: PolledInstanceStore): InstanceGone {
  const { conn, globalState, log } = base;
  const instanceGone = new InstanceGone({
    instances,
    judging: () => conn.token() !== undefined && !conn.info().demo,
    inFlight: () => inFlightIds(globalState),
    log,
  });
  base.track(instanceGone);
  base.track(instanceGone.register(recordsById('SSH options', globalState, SSH_OPTIONS_STATE_KEY)));
  base.track(instanceGone.register(idList("guard: don't warn again", globalState, GUARD_NO_WARN_KEY)));
  return instanceGone;
}
