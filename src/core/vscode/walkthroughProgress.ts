// The Getting Started walkthrough's steps complete on what really happened (package.json
// completionEvents `onContext:<key>`), not when a step's command merely opened: these are the
// context keys, set once the outcome is seen. VS Code remembers a completed step itself.
import * as vscode from 'vscode';
import type { Logger } from '../../api/types';
import { background } from '../background';

export const WALKTHROUGH_CONTEXT = {
  /** A search returned offers (or an empty list): the user saw what the marketplace has. */
  searched: 'gpuRental.walkthrough.searched',
  /** An instance that appeared in this session is running. */
  instanceRunning: 'gpuRental.walkthrough.instanceRunning',
  /** Connect opened a Remote-SSH window or an SSH terminal (not merely ran). */
  connected: 'gpuRental.walkthrough.connected',
  /** The account holds at least one SSH key. */
  sshKey: 'gpuRental.walkthrough.sshKeyOnAccount',
} as const;

/** Ticks `step` (sets its context key); `log` hears of a failure to set it. */
export function markWalkthroughStep(step: keyof typeof WALKTHROUGH_CONTEXT, log: Pick<Logger, 'warn'>, done = true): void {
  background(vscode.commands.executeCommand('setContext', WALKTHROUGH_CONTEXT[step], done), log, `ticking the walkthrough step ${step}`);
}
