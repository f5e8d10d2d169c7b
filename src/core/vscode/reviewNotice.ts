// One notification per kind (stopped instances that bill for storage, outbid instances, contracts
// that end, stopped-days warnings): its one decision button is Review…, a quick pick that lists
// every instance of the kind with its own actions and comes back after each action, so one list
// walk that finds several gives one toast, never one per instance (VS Code's guideline: combine
// notifications; no money decision in one click from a toast).
import * as vscode from 'vscode';

export const REVIEW = 'Review…';
export const DONT_SHOW_AGAIN = "Don't Show Again";

export interface ReviewAction {
  label: string;
  /** Runs the action (a destroy confirms in its own command). */
  run(): unknown;
}

export interface ReviewItem {
  name: string;
  /** One line of figures under the item's first action. */
  detail: string;
  actions: readonly ReviewAction[];
}

export interface ReviewNotice {
  /** The notification's text: for one item its own sentence, for several a count and names. */
  message: string;
  /** The quick pick's title. */
  title: string;
  items: readonly ReviewItem[];
  /** Recurring notices offer "Don't Show Again", which runs this. */
  dontShowAgain?: () => unknown;
}

interface ActionPick extends vscode.QuickPickItem {
  item?: ReviewItem;
  action?: ReviewAction;
}

/** "a, b, c and 2 more" (at most three names in a notification). */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 3);
  const more = names.length - shown.length;
  return more > 0
    ? `${shown.join(', ')} and ${more} more`
    : shown.length > 1
      ? `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]!}`
      : (shown[0] ?? '');
}

/** Shows the one notification; resolves once it was answered and the review (if any) closed. */
export function showReviewNotice(n: ReviewNotice): Thenable<void> {
  const buttons = n.dontShowAgain ? [REVIEW, DONT_SHOW_AGAIN] : [REVIEW];
  return vscode.window.showWarningMessage(n.message, ...buttons).then(async (a) => {
    if (a === REVIEW) await review(n.title, n.items);
    else if (a === DONT_SHOW_AGAIN) await n.dontShowAgain?.();
  });
}

/** Each instance's actions under its name; after an action the rest are offered again, until Escape. */
async function review(title: string, items: readonly ReviewItem[]): Promise<void> {
  let left = [...items];
  while (left.length) {
    const picks: ActionPick[] = left.flatMap((item) => [
      { label: item.name, kind: vscode.QuickPickItemKind.Separator },
      ...item.actions.map((action, k): ActionPick => ({
        label: action.label,
        description: item.name,
        ...(k === 0 ? { detail: item.detail } : {}),
        item,
        action,
      })),
    ]);
    const pick = await vscode.window.showQuickPick(picks, {
      title,
      placeHolder: vscode.l10n.t('Pick an action for one instance (Escape to decide later)'),
      matchOnDescription: true,
    });
    if (!pick?.action || !pick.item) return;
    await pick.action.run();
    const done = pick.item;
    left = left.filter((i) => i !== done);
  }
}
