// THE command table: every `gpuRental.*` command id and the handler it runs. Nothing else
// registers a command, so this file answers "what does gpuRental.x run?".
//
// Adding a command:
//   1. One file under src/<feature>/vscode/commands/ exporting the handler, in the one shape
//        export async function doIt(services: Services, ...args: unknown[]): Promise<Result>
//      `args` are what a menu, a view or a script passes (`executeCommand(id, ...args)`);
//      accept plain values (ids, option objects) so scripts keep working, and return a result
//      scripts and tests can check. A command on an instance finds it with resolveInstance
//      (src/core/vscode/instanceTarget.ts: the one id parser and picker rule of src/core/instanceRef.ts);
//      "not signed in" is ensureSignedIn (src/core/vscode/signedIn.ts). A command that fails THROWS
//      (a CommandFailure with its fix buttons, or any error): registerCommands below reports it, the
//      one failure notice (src/core/vscode/commandFailure.ts); the handler shows no error itself.
//   2. One row in `commands` below: `'gpuRental.doIt': doIt` (a static import: the handler is in
//      dist/extension.js), or `'gpuRental.doIt': lazy(load.feature, 'doIt')` to keep it out of the
//      activation bundle.
//   3. package.json `contributes.commands` (with "category": "GPU Rental") and README's command
//      tables. test/unit/app/commandTable.test.ts fails until all three list the same ids.
//
// Lazily loaded bundles: a loader in `load` is `() => import('../feature/vscode/commands/module')`, named for
// what it loads. Every `import()` of a src/ module is a bundle boundary: scripts/build.mjs
// finds them and builds each target module as dist/<module file name>.js, required the first
// time the loader runs (a static import of it from another bundle requires it too, so its state
// exists once). There is no other list to keep; two import() targets may not share a file name
// (the build says so). dist/extension.js must stay < 150 KB (`npm run bench -- --quick`).
import * as vscode from 'vscode';
import type { Services } from '../core/vscode/services';
import { INFLIGHT_STATE_KEY } from '../core/stateKeys';
import { runReported } from '../core/vscode/commandFailure';
import { readGroupIndex } from '../core/groupIndex';
import { setApiKey } from '../account/vscode/commands/setApiKey';
import { clearApiKey } from '../account/vscode/commands/clearApiKey';
import { importCliKey } from '../account/vscode/commands/importCliKey';
import { exitDemoMode, tryDemoMode } from '../demo/vscode/commands/demoMode';
import { refresh } from '../instances/vscode/commands/refresh';
import { startInstance } from '../instances/vscode/commands/startInstance';
import { stopInstance } from '../instances/vscode/commands/stopInstance';
import { stopAllRunning } from '../instances/vscode/commands/stopAllRunning';
import { destroyInstance } from '../instances/vscode/commands/destroyInstance';
import { renameInstance } from '../instances/vscode/commands/renameInstance';
import { copySshCommand } from '../ssh/vscode/commands/copySshCommand';
import { openJupyter } from '../instances/vscode/commands/openJupyter';
import { copyJupyterToken } from '../instances/vscode/commands/copyJupyterToken';
import { copyDetailValue } from '../instances/vscode/commands/copyDetailValue';
import { showLog } from '../core/vscode/commands/showLog';
import { snoozeGuard } from '../guard/vscode/commands/snoozeGuard';
import { dontWarnGuard } from '../guard/vscode/commands/dontWarnGuard';
import { setupSshConfig } from '../ssh/vscode/commands/setupSshConfig';
import { setTemplateSecret } from '../create/vscode/commands/setTemplateSecret';
import { background } from '../core/background';
import { describeError } from '../core/describeError';

/** The one handler shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler declares its own argument types
export type Handler = (services: Services, ...args: any[]) => Promise<unknown>;

/** The lazily loaded bundles. */
const load = {
  /** The create flow, template validation and the Rent This Offer entry (dist/createFromTemplate.js). */
  createFlow: () => import('../create/vscode/commands/createFromTemplate'),
  /** Groups of machines: create, run on, stop, start, destroy (dist/createGroup.js, dist/runOnGroup.js, dist/groupLifecycle.js). */
  createGroup: () => import('../groups/vscode/commands/createGroup'),
  runOnGroup: () => import('../groups/vscode/commands/runOnGroup'),
  groupLifecycle: () => import('../groups/vscode/commands/groupLifecycle'),
  /** Connect with Remote-SSH (dist/connect.js over dist/sshConnect.js; the SSH config writer comes with it, dist/sshHost.js). */
  connect: () => import('../ssh/vscode/commands/connect'),
  /** New Template and its example text (dist/newTemplate.js). */
  newTemplate: () => import('../create/vscode/commands/newTemplate'),
  /** Browse Server Templates (dist/browseServerTemplates.js). */
  serverTemplates: () => import('../create/vscode/commands/browseServerTemplates'),
  /** Show Instance Details and its document (dist/showInstanceDetails.js). */
  details: () => import('../instances/vscode/commands/showInstanceDetails'),
  /** The 2FA flows and prompts (dist/tfa.js). */
  tfa: () => import('../account/vscode/commands/tfa'),
  /** Search Offers, step by step and in the CLI's query language (dist/searchOffers.js). */
  offerSearch: () => import('../offers/vscode/commands/searchOffers'),
  /** Show Logs with Refresh and Follow (dist/logCommands.js). */
  instanceLogs: () => import('../logs/vscode/commands/logCommands'),
  /** Reboot and Recycle (dist/rebootInstance.js). */
  reboot: () => import('../instances/vscode/commands/rebootInstance'),
  /** Change Bid (dist/changeBid.js). */
  changeBid: () => import('../instances/vscode/commands/changeBid'),
  /** The account's SSH keys: add, remove, attach, copy (dist/sshKeyCommands.js; the key check before renting or connecting is dist/sshKeyCheck.js). */
  sshKeys: () => import('../ssh/vscode/commands/sshKeyCommands'),
  /** Review, Accept and Reject a host's price increase (dist/priceIncrease.js). */
  priceIncrease: () => import('../billing/vscode/commands/priceIncrease'),
  /** Show Spending and its CSV export (dist/showSpending.js). */
  spending: () => import('../billing/vscode/commands/showSpending'),
  /** Show Idle Guard Log and its document (dist/showGuardLog.js). */
  guardLog: () => import('../guard/vscode/commands/showGuardLog'),
  /** The demo's Set Demo GPU Load (dist/setDemoGpuLoad.js). */
  demoGpuLoad: () => import('../demo/vscode/commands/setDemoGpuLoad'),
};

/** A handler that loads its bundle on first use. */
function lazy<M extends Record<K, Handler>, K extends keyof M & string>(loader: () => Promise<M>, name: K): Handler {
  return async (services, ...args) => (await loader())[name](services, ...args);
}

/** A command after which rentals may be left in flight (a group member of unknown fate): the create flow's watcher takes them. */
function thenWatchRentals(handler: Handler): Handler {
  return async (services, ...args) => {
    const result: unknown = await handler(services, ...args);
    if ((services.globalState.get<unknown[]>(INFLIGHT_STATE_KEY)?.length ?? 0) > 0)
      background(
        load.createFlow().then((t) => t.keepWatching(services)),
        services.log,
        'watching a rental of unknown fate',
      );
    return result;
  };
}

export const commands = {
  // Account: API key, demo mode, 2FA
  'gpuRental.setApiKey': setApiKey,
  'gpuRental.clearApiKey': clearApiKey,
  'gpuRental.importCliKey': importCliKey,
  'gpuRental.tryDemoMode': tryDemoMode,
  'gpuRental.exitDemoMode': exitDemoMode,
  'gpuRental.setDemoGpuLoad': lazy(load.demoGpuLoad, 'setDemoGpuLoad'),
  'gpuRental.tfa.addTotp': lazy(load.tfa, 'addTotp'),
  'gpuRental.tfa.addSms': lazy(load.tfa, 'addSms'),
  'gpuRental.tfa.regenerateBackupCodes': lazy(load.tfa, 'regenerateBackupCodes'),
  'gpuRental.tfa.signIn': lazy(load.tfa, 'signIn'),
  'gpuRental.tfa.signOut': lazy(load.tfa, 'signOut'),
  'gpuRental.tfa.renameMethod': lazy(load.tfa, 'renameMethod'),
  'gpuRental.tfa.makePrimary': lazy(load.tfa, 'makePrimary'),
  'gpuRental.tfa.removeMethod': lazy(load.tfa, 'removeMethod'),
  'gpuRental.tfa.refresh': async (services: Services) => services.refreshAccount(),
  // Instances
  'gpuRental.refresh': refresh,
  'gpuRental.startInstance': startInstance,
  'gpuRental.stopInstance': stopInstance,
  'gpuRental.stopAllRunning': stopAllRunning,
  'gpuRental.destroyInstance': destroyInstance,
  'gpuRental.renameInstance': renameInstance,
  'gpuRental.copySshCommand': copySshCommand,
  'gpuRental.openJupyter': openJupyter,
  'gpuRental.copyJupyterToken': copyJupyterToken,
  'gpuRental.copyDetailValue': copyDetailValue,
  'gpuRental.showInstanceDetails': lazy(load.details, 'showInstanceDetails'),
  'gpuRental.showLog': showLog,
  'gpuRental.snoozeGuard': snoozeGuard,
  'gpuRental.dontWarnGuard': dontWarnGuard,
  'gpuRental.showGuardLog': lazy(load.guardLog, 'showGuardLog'),
  'gpuRental.showInstanceLogs': lazy(load.instanceLogs, 'showInstanceLogs'),
  'gpuRental.refreshInstanceLogs': lazy(load.instanceLogs, 'refreshInstanceLogs'),
  'gpuRental.followInstanceLogs': lazy(load.instanceLogs, 'followInstanceLogs'),
  'gpuRental.stopFollowingInstanceLogs': lazy(load.instanceLogs, 'stopFollowingInstanceLogs'),
  'gpuRental.rebootInstance': lazy(load.reboot, 'rebootInstance'),
  'gpuRental.recycleInstance': lazy(load.reboot, 'recycleInstance'),
  'gpuRental.changeBid': lazy(load.changeBid, 'changeBid'),
  // Offers and templates
  'gpuRental.searchOffers': lazy(load.offerSearch, 'searchOffers'),
  'gpuRental.searchOffersQuery': lazy(load.offerSearch, 'searchOffersQuery'),
  'gpuRental.browseServerTemplates': lazy(load.serverTemplates, 'browseServerTemplates'),
  'gpuRental.rentOffer': lazy(load.createFlow, 'rentOffer'),
  'gpuRental.createGroup': thenWatchRentals(lazy(load.createGroup, 'createGroup')),
  'gpuRental.runOnGroup': lazy(load.runOnGroup, 'runOnGroup'),
  'gpuRental.stopGroup': lazy(load.groupLifecycle, 'stopGroup'),
  'gpuRental.startGroup': lazy(load.groupLifecycle, 'startGroup'),
  'gpuRental.destroyGroup': lazy(load.groupLifecycle, 'destroyGroup'),
  'gpuRental.createFromTemplate': lazy(load.createFlow, 'createFromTemplate'),
  'gpuRental.newTemplate': lazy(load.newTemplate, 'newTemplate'),
  'gpuRental.setTemplateSecret': setTemplateSecret,
  // Remote-SSH
  'gpuRental.connect': lazy(load.connect, 'connect'),
  'gpuRental.openTerminal': lazy(load.connect, 'openTerminalOnInstance'),
  'gpuRental.setupSshConfig': setupSshConfig,
  // SSH keys on the account
  'gpuRental.addSshKey': lazy(load.sshKeys, 'addSshKey'),
  'gpuRental.removeSshKey': lazy(load.sshKeys, 'removeSshKey'),
  'gpuRental.attachSshKey': lazy(load.sshKeys, 'attachSshKey'),
  'gpuRental.copySshPublicKey': lazy(load.sshKeys, 'copySshPublicKey'),
  // Billing: price increases
  'gpuRental.reviewPriceIncrease': lazy(load.priceIncrease, 'reviewPriceIncrease'),
  'gpuRental.acceptPriceIncrease': lazy(load.priceIncrease, 'acceptPriceIncrease'),
  'gpuRental.rejectPriceIncrease': lazy(load.priceIncrease, 'rejectPriceIncrease'),
  'gpuRental.showSpending': lazy(load.spending, 'showSpending'),
  'gpuRental.exportSpending': lazy(load.spending, 'exportSpending'),
} satisfies Record<string, Handler>;

export function registerCommands(services: Services): void {
  for (const [id, handler] of Object.entries(commands) as Array<[string, Handler]>) {
    // A failing command throws; its one notice (with the buttons that fix it) is reportCommandError's.
    services.track(vscode.commands.registerCommand(id, (...args: unknown[]) => runReported(services, id, () => handler(services, ...args))));
  }
}

/**
 * Creations interrupted by a restart resume after the first instance list arrived (signed in,
 * service reachable): resumeInterrupted. One of the watchers (src/app/watchers.ts).
 * `loaders`: the bundles it may load (a test counts them).
 */
export function resumeCreations(services: Services, loaders: ResumeLoaders = load): void {
  if (!inflight(services)) return;
  const sub = services.instances.onDidChange(() => {
    sub.dispose();
    background(resumeInterrupted(services, loaders), services.log, 'resuming interrupted creations');
  });
  services.track(sub);
}

type ResumeLoaders = Pick<typeof load, 'createFlow' | 'createGroup'>;

const inflight = (services: Services) => (services.globalState.get<unknown[]>(INFLIGHT_STATE_KEY)?.length ?? 0) > 0;

/**
 * What a restart resumes: keepWatching reads and checks the records itself; this only avoids
 * loading the create flow for nothing, and the groups' bundle unless a group is recorded (only a
 * group's members resume as a group, or as a given-up group's late members). The extension API's
 * `resumeInterrupted` (integration tests cannot reload the window).
 */
export async function resumeInterrupted(services: Services, loaders: ResumeLoaders = load): Promise<void> {
  if (!inflight(services)) return;
  const logged = (work: Promise<unknown>, what: string) => work.then(undefined, (e: unknown) => services.log.warn(`${what} failed: ${describeError(e)}`));
  const jobs = [
    logged(
      loaders.createFlow().then((t) => t.keepWatching(services)),
      'watching an interrupted creation',
    ),
  ];
  // Members of a group resume with their group (the watcher above leaves them alone).
  if (readGroupIndex(services.globalState).length)
    jobs.push(
      logged(
        loaders.createGroup().then((t) => t.resumeInterruptedGroups(services)),
        'resuming an interrupted group',
      ),
    );
  await Promise.all(jobs);
}
