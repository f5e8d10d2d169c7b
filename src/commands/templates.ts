// Workspace templates: create-from-template, rent-offer, new template, template secrets,
// template diagnostics, and resuming creations interrupted by a restart. The handlers live in
// dist/templates.js, loaded the first time one runs (or a template file is open).
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { INFLIGHT_STATE_KEY } from '../templates/keys';
import type { CreateArgs } from './templates/createFromTemplate';
import { registerTemplateDiagnostics } from './templates/diagnostics';

export function registerTemplates(context: vscode.ExtensionContext, services: Services): void {
  const templates = () => import('./templates/lazy');
  context.subscriptions.push(
    vscode.commands.registerCommand('gpuRental.createFromTemplate', async (arg?: CreateArgs | vscode.Uri) =>
      (await templates()).createFromTemplate(services, arg instanceof vscode.Uri ? { template: arg } : (arg ?? {})),
    ),
    vscode.commands.registerCommand('gpuRental.rentOffer', async (arg?: unknown, extra?: CreateArgs) => (await templates()).rentOffer(services, arg, extra)),
    vscode.commands.registerCommand('gpuRental.newTemplate', async () => (await templates()).newTemplate()),
    vscode.commands.registerCommand('gpuRental.setTemplateSecret', async (arg?: { name?: string; value?: string }) =>
      (await templates()).setTemplateSecret(services, arg),
    ),
  );
  registerTemplateDiagnostics(context, services);

  // Resume lazily: after the first instance list arrived (signed in, service reachable).
  // keepWatching reads and checks the records itself; this only avoids loading it for nothing.
  const inflight = () => (services.globalState.get<unknown[]>(INFLIGHT_STATE_KEY)?.length ?? 0) > 0;
  if (inflight()) {
    const sub = services.instances.onDidChange(() => {
      sub.dispose();
      if (inflight()) void templates().then((t) => t.keepWatching(services));
    });
    context.subscriptions.push(sub);
  }
}
