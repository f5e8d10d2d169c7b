import type * as vscode from 'vscode';
import type { Services } from '../model/services';

export function registerSidebar(_context: vscode.ExtensionContext, _services: Services): void {
  // filled in by its feature
}
