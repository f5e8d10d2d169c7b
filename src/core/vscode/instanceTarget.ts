// How every instance command finds its target: what instanceIdOf reads from its argument
// (tree node, id, `{ id }`), or a quick pick by the picker rule (src/core/instanceRef.ts).
import * as vscode from 'vscode';
import type { Instance } from '../../api/types';
import type { Services } from './services';
import { describeError } from '../describeError';
import { formatRate, currentRate } from '../rates';
import { gpuText, instanceName, stateText } from '../instanceWords';
import { ensureSignedIn } from './signedIn';
import { instanceIdOf, pickRule } from '../instanceRef';
import { instanceKey } from '../actionGuard';
import { tellDone, tellNothing } from './statusMessage';
import { CommandFailure, SHOW_OUTPUT_LOG, failureOf } from './commandFailure';

/** The instance for `arg`, or undefined when the user cancelled; throws (for the command's reporter) when there is none. */
export async function resolveInstance(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log'>,
  arg: unknown,
  allowed: (i: Instance) => boolean,
  what: { verb: string; none: string; takeOnly?: boolean },
): Promise<Instance | undefined> {
  const id = instanceIdOf(arg);
  if (arg !== undefined && arg !== null && id === undefined) {
    throw new CommandFailure(
      vscode.l10n.t('"{0}" needs an instance id (a number) or an instance row. Pick the instance in the GPU Rental view and try again.', what.verb),
    );
  }
  if (id !== undefined) {
    let inst = services.instances.get(id);
    if (!inst) {
      try {
        inst = await (await services.api()).showInstance(id);
      } catch (e) {
        throw new CommandFailure(vscode.l10n.t('Could not find instance #{0}: {1}', id, describeError(e)), failureOf(e).fixes);
      }
    }
    return inst;
  }
  ensureSignedIn(services);
  if (!services.instances.loaded) await services.instances.refresh();
  const rule = pickRule(services.instances.instances, allowed, what.takeOnly);
  // Nothing to act on: said in the status bar (the view shows the instances), not a notification.
  if (rule.kind === 'none') {
    tellNothing(what.none);
    return undefined;
  }
  if (rule.kind === 'one') return rule.instance;
  const picked = await vscode.window.showQuickPick(
    rule.candidates.map((i) => ({
      label: instanceName(i),
      description: [formatRate(currentRate(i)), stateText(i), gpuText(i)].filter(Boolean).join(' · '),
      detail: `#${i.id}${i.geolocation ? ` · ${i.geolocation}` : ''}`,
      instance: i,
    })),
    { title: vscode.l10n.t('GPU Rental: {0}', what.verb), placeHolder: vscode.l10n.t('Pick an instance'), matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.instance;
}

/**
 * Runs one action with "Stopping…" on the row, then polls fast until the state settles. A failure
 * is thrown as '<failure> "<name>": <why>' (with Show Output Log) for the command's reporter.
 */
export async function runInstanceAction(
  services: Pick<Services, 'instances' | 'log' | 'showLog'>,
  inst: Instance,
  pending: string,
  failure: string,
  action: () => Promise<unknown>,
): Promise<true> {
  const store = services.instances;
  store.setPending(inst.id, pending);
  try {
    await action();
    services.log.info(`${pending.replace('…', '')} instance #${inst.id}: accepted`);
    // A short confirmation (the row shows the state as it settles): not a toast.
    tellDone(vscode.l10n.t('{0} "{1}": the service accepted it.', pending.replace('…', ''), instanceName(inst)));
    store.watch(inst.id);
    await store.refresh();
    return true;
  } catch (e) {
    const f = failureOf(e);
    services.log.error(`${failure} #${inst.id}: ${f.message}`);
    throw new CommandFailure(vscode.l10n.t('{0} "{1}": {2}', failure, instanceName(inst), f.message), [...f.fixes, SHOW_OUTPUT_LOG()]);
  } finally {
    store.setPending(inst.id, undefined);
  }
}

/**
 * Runs `fn` (confirmation and request) as the one action on `key` (an instance, an offer, a
 * template). While another runs there, says so and sends nothing: `busy` is returned.
 */
export async function oneAtATime<T>(
  services: Pick<Services, 'instances' | 'log'>,
  key: string,
  what: string,
  name: string,
  busy: T,
  fn: () => Promise<T>,
): Promise<T> {
  const claim = services.instances.actions.claim(key, what);
  if (typeof claim !== 'function') {
    services.log.info(`${what} ${name}: refused, ${claim.busy} is still running there`);
    // The row shows the action in progress: a status bar line says why nothing was sent.
    tellNothing(vscode.l10n.t('{0} of {1} is still in progress. Wait for it to finish; nothing was sent for this {2}.', claim.busy, name, what));
    return busy;
  }
  try {
    return await fn();
  } finally {
    claim();
  }
}

/** oneAtATime for an instance action: `false` when another action on it still runs. */
export function guardedInstanceAction(
  services: Pick<Services, 'instances' | 'log'>,
  inst: Instance,
  what: string,
  fn: () => Promise<boolean>,
): Promise<boolean> {
  return oneAtATime(services, instanceKey(inst.id), what, `"${instanceName(inst)}" (#${inst.id})`, false, fn);
}
