// The confirmation before a step that deletes data (Destroy, Recycle): Cancel is the answer
// Enter gives. VS Code's modal message focuses its first button, and an item marked
// isCloseAffordance is moved to the end (and Escape answers it), so a modal cannot have a focused
// Cancel without a second Cancel button (or an Escape that destroys). A quick pick can: its first
// item, Cancel, is the active one; the destructive choice needs a deliberate Down (or a click).
import * as vscode from 'vscode';

export interface DestructiveQuestion {
  /** "Destroy "my-box" (#12, 1× RTX 4090, now $0.40/h)?" */
  question: string;
  /** What is lost, what it has cost so far; shown under the destructive choice. */
  detail: string;
  /** The destructive choice's label, e.g. "Destroy". */
  action: string;
}

export const CANCEL_LABEL = 'Cancel';

/** True only when the user picked the destructive choice; Enter, Escape or a click elsewhere cancel. */
export async function confirmDestructive(q: DestructiveQuestion): Promise<boolean> {
  const cancel: vscode.QuickPickItem = { label: vscode.l10n.t('$(close) {0}', CANCEL_LABEL), description: vscode.l10n.t('keep it as it is') };
  const go: vscode.QuickPickItem = { label: vscode.l10n.t('$(trash) {0}', q.action), detail: q.detail.replace(/\n/g, ' ') };
  const picked = await vscode.window.showQuickPick([cancel, go], {
    title: q.question,
    placeHolder: vscode.l10n.t('Enter keeps it (Cancel). To go ahead, choose "{0}".', q.action),
    ignoreFocusOut: true,
  });
  return picked === go;
}
