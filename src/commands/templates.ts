// Workspace templates: create-from-template, rent-offer, new template, template secrets,
// template diagnostics, and resuming creations interrupted by a restart.
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { readInflight } from '../templates/createFlow';
import { createFromTemplate, keepWatching, rentOffer, type CreateArgs } from './templates/createFromTemplate';
import { registerTemplateDiagnostics } from './templates/diagnostics';
import { newTemplate } from './templates/newTemplate';
import { setTemplateSecret } from './templates/setTemplateSecret';

export function registerTemplates(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('gpuRental.createFromTemplate', (arg?: CreateArgs | vscode.Uri) =>
      createFromTemplate(services, arg instanceof vscode.Uri ? { template: arg } : (arg ?? {})),
    ),
    vscode.commands.registerCommand('gpuRental.rentOffer', (arg?: unknown, extra?: CreateArgs) => rentOffer(services, arg, extra)),
    vscode.commands.registerCommand('gpuRental.newTemplate', () => newTemplate()),
    vscode.commands.registerCommand('gpuRental.setTemplateSecret', (arg?: { name?: string; value?: string }) => setTemplateSecret(services, arg)),
  );
  registerTemplateDiagnostics(context, services);

  // Resume lazily: after the first instance list arrived (signed in, service reachable).
  if (readInflight(services.globalState).length) {
    const sub = services.instances.onDidChange(() => {
      sub.dispose();
      if (readInflight(services.globalState).length) void keepWatching(services);
    });
    context.subscriptions.push(sub);
  }
}
