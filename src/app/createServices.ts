// The composition root: createServices() builds the one Services every command and view gets
// (polling starts once the stored keys are read; the SSH entry sync is one of the watchers,
// watchers.ts). It only composes; each part is built by its own small factory: serviceBase.ts
// (log channel, namespaced secrets and states, settings, the connection), apiAccess.ts (the
// one API client factory), createStores.ts (instances, offers, credit, logs, cost notes),
// connectionWiring.ts (stored keys, context keys, resets on a connection change), createGuard.ts
// (the idle guard's monitor, per-instance clean-up).
import { background } from '../core/background';
import type * as vscode from 'vscode';
import type { Services } from '../core/vscode/services';
import { Emitter } from '../core/events';
import { readSettings } from '../core/vscode/settings';
import { createServiceBase, type ServiceBase } from './serviceBase';
import { apiClientFactory, closeApiClient, createApiAccess, keyCheck } from './apiAccess';
import { apiKeyOwner } from '../account/apiKey';
import { createCostNotes, createCreditStore, createInstanceStore, createLogStore, createOfferStore, startBillingLater } from './createStores';
import { InstanceMarks } from '../core/instanceMarks';
import { SESSION_KEY_SECRET, wireConnection } from './connectionWiring';
import { createGuardMonitor, createInstanceGone } from './createGuard';

/** The one Services, and the running billing session (the extension's API hands it to integration tests). */
export function createServices(context: vscode.ExtensionContext): { services: Services; billing: () => unknown } {
  const base = createServiceBase(context);
  const { conn, secrets, track, log } = base;
  // `ready` below is awaited by the first request, which comes after this returns.
  const clients = apiClientFactory({ log, isDemo: () => conn.isDemo() });
  const api = createApiAccess(base, clients, () => ready);
  const apiKey = apiKeyOwner(secrets, conn, keyCheck(conn, clients));

  const instances = createInstanceStore(base, api);
  const offers = createOfferStore(base, api);
  const credit = createCreditStore(base, api);
  const accountRefresh = new Emitter<void>();
  track(accountRefresh);
  const logs = createLogStore(base, api);
  const billing = startBillingLater(base, instances, () => services);
  const costNotes = createCostNotes(base, instances, billing);
  const marks = new InstanceMarks();
  track(marks);

  const ready = wireConnection(base, {
    apiKey,
    instances,
    clearCosts: costNotes.clear,
    resetStores: () => {
      instances.reset();
      offers.reset();
      credit.reset();
    },
  });

  const guard = createGuardMonitor(base, instances, () => services);
  const instanceGone = createInstanceGone(base, instances);
  let demoStop: (() => Promise<void>) | undefined;

  const services: Services = {
    log,
    marks,
    api,
    connection: () => conn.info(),
    onDidChangeConnection: base.connectionChanged.event,
    instances,
    offers,
    credit,
    guard,
    logs,
    instanceGone,
    serverTemplates: new Map(),
    secrets,
    globalState: base.globalState,
    workspaceState: base.workspaceState,
    settings: readSettings,
    setSessionKey: async (key) => {
      if (key) await secrets.store(SESSION_KEY_SECRET, key);
      else await secrets.delete(SESSION_KEY_SECRET);
      conn.setSessionKey(key);
    },
    refreshAccount: () => accountRefresh.fire(),
    onDidRequestAccountRefresh: accountRefresh.event,
    track,
    apiKey,
    connectionState: conn,
    ready,
    extensionUri: context.extensionUri,
    showLog: (preserveFocus) => base.outputChannel.show(preserveFocus),
    setDemo: async (endpoint, stop) => {
      const previous = demoStop;
      demoStop = endpoint ? stop : undefined;
      conn.setDemo(endpoint);
      if (previous && previous !== stop) await previous().catch(() => undefined);
    },
    costs: costNotes.costs,
    get demoStop() {
      return demoStop;
    },
  };
  endWithExtension(base, services);
  return { services, billing };
}

/** The demo and the client's sockets end with the extension. */
function endWithExtension(base: ServiceBase, services: Services): void {
  const { track, log } = base;
  track({ dispose: () => void (services.demoStop ? services.demoStop().catch(() => undefined) : undefined) });
  // Keep-alive sockets must not outlive the extension host's shutdown.
  track({ dispose: () => background(closeApiClient(), log, 'closing the API connections') });
}
