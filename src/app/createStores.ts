// The stores of Services, one small factory each: the polled instance list, the offer search
// state, the account credit, instance logs, and the cost notes (the ledger loads with the first
// list, dist/costLedger.js, off the activation path).
import { background } from '../core/background';
import { inFlightIds } from '../instances/instanceGone';
import type { BillingSession } from '../billing/vscode/billingSession';
import type { Instance, ServiceApi } from '../api/types';
import { OfferStore } from '../offers/offerStore';
import { CreditStore } from '../costs/credit';
import { InstanceLogStore } from '../logs/logStore';
import { PolledInstanceStore } from '../instances/instanceStore';
import { DEFAULT_POLLER_CONFIG, type PollerConfig } from '../core/poller';
import { describeError } from '../core/describeError';
import type { Services } from '../core/vscode/services';
import type { ServiceBase } from './serviceBase';

type Api = () => Promise<ServiceApi>;

export function createInstanceStore(base: ServiceBase, api: Api): PolledInstanceStore {
  const { conn, log } = base;
  const pollerConfig = (): PollerConfig => ({
    ...DEFAULT_POLLER_CONFIG,
    intervalMs: base.settings.pollIntervalSeconds * 1000,
    hiddenIntervalMs: base.settings.hiddenPollIntervalSeconds * 1000,
  });
  const instances = new PolledInstanceStore({
    api,
    isSignedIn: () => conn.token() !== undefined,
    generation: () => conn.generation,
    config: pollerConfig,
    inFlight: () => inFlightIds(base.globalState),
    describeError: (e) => {
      const msg = describeError(e);
      log.warn(`Refreshing instances failed (will retry with backoff): ${msg}`);
      return msg;
    },
  });
  base.track(instances);
  return instances;
}

export function createOfferStore(base: ServiceBase, api: Api): OfferStore {
  const offers = new OfferStore({
    api,
    isSignedIn: () => base.conn.token() !== undefined,
    workspaceState: base.workspaceState,
    warn: (m) => base.log.warn(m),
  });
  base.track(offers);
  return offers;
}

export function createCreditStore(base: ServiceBase, api: Api): CreditStore {
  const credit = new CreditStore({ api, generation: () => base.conn.generation });
  base.track(credit);
  return credit;
}

export function createLogStore(base: ServiceBase, api: Api): InstanceLogStore {
  const logs = new InstanceLogStore({ api, describeError });
  base.track(logs);
  return logs;
}

/**
 * Price increases, spending and the budget (dist/billingSession.js) start with the first list read
 * while signed in, off the activation path. Returns the session once it runs.
 */
export function startBillingLater(base: ServiceBase, instances: PolledInstanceStore, services: () => Services): () => BillingSession | undefined {
  let started = false;
  // The loaded module, not the session: the session's one owner is billingSession.ts.
  let owner: typeof import('../billing/vscode/billingSession') | undefined;
  base.track(
    instances.onDidChange(() => {
      if (started || !instances.loaded || base.conn.token() === undefined) return;
      started = true;
      background(
        import('../billing/vscode/billingSession').then((m) => {
          owner = m;
          m.billingSession(services());
        }),
        base.log,
        'starting billing',
      );
    }),
  );
  return () => owner?.runningBilling(services());
}

/**
 * Cost notes of Services, and `clear` for a connection change: the service's charges where the
 * billing session has read them (src/billing/spending.ts), else the ledger's estimate.
 */
export function createCostNotes(
  base: ServiceBase,
  instances: PolledInstanceStore,
  billing: () => BillingSession | undefined,
): { costs: Services['costs']; clear(): void } {
  // Every poll adds to the rate history (an empty list right after a connection change is "not loaded yet").
  // The ledger loads with the first list (dist/costLedger.js), off the activation path.
  let ledger: import('../costs/costLedger').CostNotesImpl | undefined;
  base.track(
    instances.onDidChange(() => {
      if (instances.loaded)
        background(
          import('../costs/costLedger').then((m) => (ledger ??= new m.CostNotesImpl()).observe(instances.instances, Date.now())),
          base.log,
          'loading the cost ledger',
        );
    }),
  );
  return {
    costs: {
      line: (i: Instance) => billing()?.costLine(i) ?? ledger?.line(i, Date.now()),
      group: (members: readonly Instance[]) => billing()?.groupCost(members) ?? ledger?.group(members, Date.now()),
      today: () => billing()?.spentToday() ?? ledger?.today(Date.now()),
    },
    clear: () => ledger?.clear(),
  };
}
