// Wires the extension together; nothing else lives here.
import type * as vscode from 'vscode';
import { createServices } from './views/services';
import { registerSidebar } from './views/sidebar';
import { registerTemplates } from './commands/templates';
import { registerSsh } from './commands/ssh';
import { registerAccount } from './views/account';
import type { Services } from './model/services';

export interface ExtensionApi {
  /** For integration tests and scripts. */
  readonly services: Services;
  /** Duration of activate() itself in ms, for the performance bench (VS Code's total also counts loading the module). */
  readonly activateMs: number;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const t0 = performance.now();
  const services = createServices(context);
  registerSidebar(context, services);
  registerTemplates(context, services);
  registerSsh(context, services);
  registerAccount(context, services);
  return { services, activateMs: performance.now() - t0 };
}

export function deactivate(): void {
  // disposables are owned by context.subscriptions
}
