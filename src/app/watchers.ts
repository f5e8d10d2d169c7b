// The watchers: what follows later events (instance lists, template files, guard warnings) and is
// not needed for the first paint, so they start once activate() has returned. Each still
// subscribes before its first event can come: an instance list waits for the stored keys (read
// after activation too) and a request; a template edit waits for the user, and the files already
// open are checked when the diagnostics start.
import type { Services } from '../core/vscode/services';
import { afterActivation } from '../core/background';
import { startEntrySync } from '../ssh/entrySync';
import { type SshOptionsByInstance } from '../ssh/sshTypes';
import { registerTemplateDiagnostics } from '../create/vscode/templateDiagnostics';
import { startGuardWarnings } from '../guard/vscode/guardWarnings';
import { trackWalkthroughProgress } from './walkthrough';
import { resumeCreations } from './commandTable';
import { SSH_OPTIONS_STATE_KEY } from '../core/stateKeys';

/** Starts the watchers once activate() has returned. */
export function startWatchers(services: Services): void {
  afterActivation(() => watch(services), services.log, 'starting the watchers');
}

function watch(services: Services): void {
  // Host entries follow the instance list. The writer (dist/sshHost.js) loads at the first
  // reconcile after the list has loaded (startup clean-up).
  services.track(
    startEntrySync({
      instances: services.instances,
      enabled: () => services.settings().ssh.manageConfig && services.connectionState.token() !== undefined,
      writer: async () => (await import('../ssh/vscode/sshHost')).createWriter(services),
      registered: () => services.globalState.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {},
      log: services.log,
    }),
  );
  registerTemplateDiagnostics(services);
  trackWalkthroughProgress(services);
  resumeCreations(services);
  startGuardWarnings(services);
}
