// The one error row of the trees: a warning icon, what failed, why, and Retry on click.
// The message carries server text (an error's `msg`), so the tooltip is plain text, never
// Markdown: links and images in a server message are shown as written, not rendered.
import * as vscode from 'vscode';
import { rowSpeech } from '../spokenRow';

export function errorItem(id: string, title: string, message: string, tooltip: string): vscode.TreeItem {
  const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
  item.id = id;
  item.description = message;
  item.tooltip = tooltip;
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  item.contextValue = 'error';
  item.command = { command: 'gpuRental.refresh', title: vscode.l10n.t('Retry') };
  item.accessibilityInformation = { label: rowSpeech(`Error: ${title}`, message, 'activate to retry') };
  return item;
}
