// The Getting Started walkthrough (package.json contributes.walkthroughs) opens once, on the
// first activation after install, unless the user turned walkthroughs-on-install off.
import { afterActivation, background } from '../core/background';
import * as vscode from 'vscode';
import type { Services } from '../core/vscode/services';
import { WALKTHROUGH_SHOWN_KEY } from '../core/stateKeys';
import { markWalkthroughStep } from '../core/vscode/walkthroughProgress';

export const WALKTHROUGH_ID = 'gpurental.gpu-rental#gettingStarted';

/** Once activate() has returned: an editor opening is not part of the sidebar's first paint. */
export function openWalkthroughOnce(services: Services): void {
  afterActivation(
    () => {
      if (services.globalState.get<boolean>(WALKTHROUGH_SHOWN_KEY)) return;
      background(services.globalState.update(WALKTHROUGH_SHOWN_KEY, true), services.log, 'remembering that the walkthrough was shown');
      if (vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall') === false) return;
      void Promise.resolve(vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)).catch((e: unknown) =>
        services.log.debug(`walkthrough: could not open it (${e instanceof Error ? e.message : 'unknown error'})`),
      );
    },
    services.log,
    'opening the walkthrough',
  );
}

/**
 * Completes "Create an instance" when an instance that was not in the first list after signing in
 * is running, and "Register an SSH key" when the account holds a key (checked after signing in
 * and whenever the account changes: a key added, or the demo registering its own). The search
 * step is completed by the search itself (searchOffers.ts).
 */
export function trackWalkthroughProgress(services: Services): void {
  let baseline: Set<number> | undefined;
  let keyCheck = 0;
  const checkKeys = (): void => {
    if (!services.connection().signedIn) return;
    const gen = ++keyCheck;
    // After activation's own requests: this is one GET, not on the activation path.
    setTimeout(() => {
      if (gen !== keyCheck || !services.connection().signedIn) return;
      void services
        .api()
        .then((api) => api.listSshKeys())
        .then((keys) => gen === keyCheck && keys.length > 0 && markWalkthroughStep('sshKey', services.log))
        .catch((e: unknown) => services.log.debug(`walkthrough: could not read the account's SSH keys (${e instanceof Error ? e.message : 'unknown error'})`));
    }, 1500);
  };
  services.track(
    services.instances.onDidChange(() => {
      const store = services.instances;
      if (!store.loaded) return;
      if (!baseline) {
        baseline = new Set(store.instances.map((i) => i.id));
        return;
      }
      if (store.instances.some((i) => !baseline!.has(i.id) && i.state === 'running')) markWalkthroughStep('instanceRunning', services.log);
    }),
  );
  services.track(
    services.onDidChangeConnection(() => {
      baseline = undefined;
      checkKeys();
    }),
  );
  services.track(services.onDidRequestAccountRefresh(() => checkKeys()));
  checkKeys();
}
