// The Getting Started walkthrough (package.json contributes.walkthroughs) opens once, on the
// first activation after install, unless the user turned walkthroughs-on-install off.
import * as vscode from 'vscode';
import type { Services } from '../core/vscode/services';
import { WALKTHROUGH_SHOWN_KEY } from '../core/stateKeys';

export const WALKTHROUGH_ID = 'gpurental.gpu-rental#gettingStarted';

export function openWalkthroughOnce(services: Services): void {
  if (services.globalState.get<boolean>(WALKTHROUGH_SHOWN_KEY)) return;
  void services.globalState.update(WALKTHROUGH_SHOWN_KEY, true);
  if (vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall') === false) return;
  void Promise.resolve(vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)).catch((e: unknown) =>
    services.log.debug(`walkthrough: could not open it (${e instanceof Error ? e.message : 'unknown error'})`),
  );
}
