// Registers the Instances and Offers views, the cost status bar, and the commands of the
// sidebar, API key and demo features.
import * as vscode from 'vscode';
import type { Services } from '../model/services';
import { core } from './services';
import { InstancesTreeProvider } from './instancesView';
import { OffersTreeProvider } from './offersView';
import { CostStatusBar } from './statusBar';
import { exitDemoModeCommand, tryDemoModeCommand } from './demoMode';
import { setApiKeyCommand } from '../commands/apiKey/setApiKey';
import { clearApiKeyCommand } from '../commands/apiKey/clearApiKey';
import { importCliKeyCommand } from '../commands/apiKey/importCliKey';
import { startInstanceCommand } from '../commands/instances/startInstance';
import { stopInstanceCommand } from '../commands/instances/stopInstance';
import { destroyInstanceCommand } from '../commands/instances/destroyInstance';
import { renameInstanceCommand } from '../commands/instances/renameInstance';
import { copySshCommandCommand } from '../commands/instances/copySshCommand';
import { openJupyterCommand } from '../commands/instances/openJupyter';
import { copyJupyterTokenCommand } from '../commands/instances/copyJupyterToken';
import { showInstanceDetailsCommand } from '../commands/instances/showInstanceDetails';
import { searchOffersCommand } from '../commands/offers/searchOffers';

/** Handles the integration tests reach through `services.ui`. */
export interface SidebarUi {
  instances: InstancesTreeProvider;
  offers: OffersTreeProvider;
  statusBar: CostStatusBar;
}

export function registerSidebar(context: vscode.ExtensionContext, services: Services): void {
  const c = core(services);
  const sub = (d: vscode.Disposable): void => {
    context.subscriptions.push(d);
  };

  const instances = new InstancesTreeProvider(services);
  const instancesView = vscode.window.createTreeView('gpuRental.instances', { treeDataProvider: instances, showCollapseAll: true });
  instances.view = instancesView;
  instances.updateMessage();
  sub(instances);
  sub(instancesView);
  // Poll at the fast interval while the view is visible, slowly while hidden.
  c.instances.poller.setVisible(instancesView.visible);
  sub(instancesView.onDidChangeVisibility((e) => c.instances.poller.setVisible(e.visible)));

  const offers = new OffersTreeProvider(services);
  const offersView = vscode.window.createTreeView('gpuRental.offers', { treeDataProvider: offers });
  offers.view = offersView;
  sub(offers);
  sub(offersView);

  const statusBar = new CostStatusBar(services);
  sub(statusBar);

  (c as { ui?: SidebarUi }).ui = { instances, offers, statusBar };

  const commands: Record<string, (...args: never[]) => unknown> = {
    'gpuRental.setApiKey': setApiKeyCommand(services),
    'gpuRental.clearApiKey': clearApiKeyCommand(services),
    'gpuRental.importCliKey': importCliKeyCommand(services),
    'gpuRental.refresh': async () => {
      await Promise.all([services.instances.refresh(), offersView.visible || offers.offers ? offers.refresh() : undefined]);
    },
    'gpuRental.searchOffers': searchOffersCommand(services, offers),
    'gpuRental.startInstance': startInstanceCommand(services),
    'gpuRental.stopInstance': stopInstanceCommand(services),
    'gpuRental.destroyInstance': destroyInstanceCommand(services),
    'gpuRental.renameInstance': renameInstanceCommand(services),
    'gpuRental.copySshCommand': copySshCommandCommand(services),
    'gpuRental.openJupyter': openJupyterCommand(services),
    'gpuRental.copyJupyterToken': copyJupyterTokenCommand(services),
    'gpuRental.showInstanceDetails': showInstanceDetailsCommand(services),
    'gpuRental.tryDemoMode': tryDemoModeCommand(services),
    'gpuRental.exitDemoMode': exitDemoModeCommand(services),
    'gpuRental.showLog': () => c.outputChannel.show(),
  };
  for (const [id, fn] of Object.entries(commands)) sub(vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown));
}
