// Routine confirmations (saved, signed in, accepted, copied, stopped): a short status bar message,
// not a notification (VS Code's guideline: notifications are for what needs attention).
import * as vscode from 'vscode';

/** How long a confirmation stays in the status bar. */
const SHOWN_MS = 5000;

/** "$(check) <text>" in the status bar for a few seconds. */
export function tellDone(text: string): void {
  vscode.window.setStatusBarMessage(`$(check) ${text}`, SHOWN_MS);
}

/** "$(info) <text>" in the status bar: a command found nothing to do (the view shows why). */
export function tellNothing(text: string): void {
  vscode.window.setStatusBarMessage(`$(info) ${text}`, SHOWN_MS);
}
