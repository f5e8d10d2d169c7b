// registerViews: the Instances, Offers and Account trees, the cost status bar and the log and
// server template documents (template diagnostics are a watcher, watchers.ts). Views render
// Services' state and never import a command: a click runs a command by its id (TreeItem.command,
// executeCommand). A new view: its provider in its feature's VS Code part (src/<feature>/vscode/),
// created below; state it shares with commands goes into the feature's core and onto Services
// (src/core/vscode/services.ts, built in src/app/createServices.ts).
import * as vscode from 'vscode';
import type { Services } from '../core/vscode/services';
import { AUTHORIZED_UNTIL_KEY } from '../core/stateKeys';
import { InstancesTreeProvider } from '../instances/vscode/instancesView';
import { OffersTreeProvider } from '../offers/vscode/offersView';
import { AccountTreeProvider } from '../account/vscode/accountTree';
import { CostStatusBar } from '../costs/vscode/statusBar';
import { InstanceLogsProvider } from '../logs/vscode/logDocuments';
import { LOGS_SCHEME } from '../logs/logStore';
import { SERVER_TEMPLATE_SCHEME } from '../create/serverTemplates';
import { ServerTemplateDocs } from '../create/vscode/serverTemplateDocs';
import { openWalkthroughOnce } from './walkthrough';
import { afterActivation, background } from '../core/background';

/** Handles the integration tests reach through the extension's API (`ui`, src/extension.ts). */
export interface ViewsUi {
  instances: InstancesTreeProvider;
  offers: OffersTreeProvider;
  account: AccountTreeProvider;
  statusBar: CostStatusBar;
}

export function registerViews(services: Services): ViewsUi {
  const sub = (d: vscode.Disposable): void => services.track(d);

  const instances = new InstancesTreeProvider(services);
  const instancesView = vscode.window.createTreeView('gpuRental.instances', { treeDataProvider: instances, showCollapseAll: true });
  sub(instances);
  sub(instancesView);
  // Poll at the fast interval while the view is visible, slowly while hidden.
  services.instances.poller.setVisible(instancesView.visible);
  sub(instancesView.onDidChangeVisibility((e) => services.instances.poller.setVisible(e.visible)));

  const offers = new OffersTreeProvider(services);
  const offersView = vscode.window.createTreeView('gpuRental.offers', { treeDataProvider: offers });
  services.offers.visible = offersView.visible;
  sub(offers);
  sub(offersView);
  sub(offersView.onDidChangeVisibility((e) => (services.offers.visible = e.visible)));

  const authorizedUntil = (): number | undefined => {
    const t = services.globalState.get<number>(AUTHORIZED_UNTIL_KEY);
    return t !== undefined && t > Date.now() ? t : undefined;
  };
  const account = new AccountTreeProvider(services, authorizedUntil);
  const accountView = vscode.window.createTreeView('gpuRental.account', { treeDataProvider: account, showCollapseAll: false });
  account.setVisible(accountView.visible);
  const sessionContext = (session: boolean): void =>
    background(vscode.commands.executeCommand('setContext', 'gpuRental.tfaSession', session), services.log, 'setting the 2FA session context');
  sub(account);
  sub(accountView);
  sub(accountView.onDidChangeVisibility((e) => account.setVisible(e.visible)));
  sub(services.onDidRequestAccountRefresh(() => account.refresh()));
  sub(
    services.onDidChangeConnection((c) => {
      sessionContext(c.session);
      account.refresh();
    }),
  );

  const statusBar = new CostStatusBar(services);
  sub(statusBar);

  const logs = new InstanceLogsProvider(services);
  sub(logs);
  sub(vscode.workspace.registerTextDocumentContentProvider(LOGS_SCHEME, logs));
  sub(vscode.workspace.registerTextDocumentContentProvider(SERVER_TEMPLATE_SCHEME, new ServerTemplateDocs(services)));

  openWalkthroughOnce(services);

  // What reads the connection (its URL is a setting, read at first use) comes once activate() has
  // returned, as the connection is then: the views' message and description, the cost status bar,
  // and the 2FA context (reset: a restarted extension host finds the previous host's value).
  afterActivation(
    () => {
      instances.view = instancesView;
      offers.view = offersView;
      statusBar.update();
      sessionContext(services.connection().session);
    },
    services.log,
    'describing the views',
  );

  return { instances, offers, account, statusBar };
}
