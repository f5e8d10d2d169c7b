import type * as vscode from 'vscode';
import type { Services } from '../model/services';

export function createServices(_context: vscode.ExtensionContext): Services {
  throw new Error('not wired yet');
}
