// How every instance command finds its target: a tree node, an instance id (number or
// numeric string, for scripts), `{ id }`, or a quick pick filtered by the command's state rule.
import * as vscode from 'vscode';
import type { Instance } from '../../api/types';
import type { Services } from '../../model/services';
import { core } from '../../views/services';
import { describeError } from '../../model/errors';
import { formatRate, currentRate } from '../../model/costs';
import { gpuText, instanceName, stateText } from '../../model/instanceViewModel';
import { ensureSignedIn } from '../signedIn';

export function instanceIdOf(arg: unknown): number | undefined {
  if (typeof arg === 'number') return Number.isInteger(arg) && arg > 0 ? arg : undefined;
  if (typeof arg === 'string' && /^\d+$/.test(arg.trim())) return Number(arg.trim());
  if (typeof arg === 'object' && arg !== null) {
    const o = arg as { id?: unknown; instanceId?: unknown };
    return instanceIdOf(o.instanceId ?? o.id);
  }
  return undefined;
}

/** The instance for `arg`, or undefined after telling the user why (or when they cancelled). */
export async function resolveInstance(
  services: Services,
  arg: unknown,
  allowed: (i: Instance) => boolean,
  what: { verb: string; none: string },
): Promise<Instance | undefined> {
  const id = instanceIdOf(arg);
  if (arg !== undefined && arg !== null && id === undefined) {
    void vscode.window.showErrorMessage(`"${what.verb}" needs an instance id (a number) or an instance row. Pick the instance in the GPU Rental view and try again.`);
    return undefined;
  }
  if (id !== undefined) {
    let inst = services.instances.get(id);
    if (!inst) {
      try {
        inst = await (await services.api()).showInstance(id);
      } catch (e) {
        void vscode.window.showErrorMessage(`Could not find instance #${id}: ${describeError(e)}`);
        return undefined;
      }
    }
    return inst;
  }
  if (!ensureSignedIn(services)) return undefined;
  if (!core(services).instances.loaded) await services.instances.refresh();
  const candidates = services.instances.instances.filter(allowed);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(what.none);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((i) => ({
      label: instanceName(i),
      description: [formatRate(currentRate(i)), stateText(i), gpuText(i)].filter(Boolean).join(' · '),
      detail: `#${i.id}${i.geolocation ? ` · ${i.geolocation}` : ''}`,
      instance: i,
    })),
    { title: `GPU Rental: ${what.verb}`, placeHolder: 'Pick an instance', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.instance;
}

/** Runs one action with "Stopping…" on the row, then polls fast until the state settles. */
export async function runInstanceAction(
  services: Services,
  inst: Instance,
  pending: string,
  failure: string,
  action: () => Promise<unknown>,
): Promise<boolean> {
  const store = core(services).instances;
  store.setPending(inst.id, pending);
  try {
    await action();
    services.log.info(`${pending.replace('…', '')} instance #${inst.id}: accepted`);
    store.watch(inst.id);
    await store.refresh();
    return true;
  } catch (e) {
    const msg = describeError(e);
    services.log.error(`${failure} #${inst.id}: ${msg}`);
    void vscode.window.showErrorMessage(`${failure} "${instanceName(inst)}": ${msg}`, 'Show Log').then((a) => {
      if (a) core(services).outputChannel.show(true);
    });
    return false;
  } finally {
    store.setPending(inst.id, undefined);
  }
}
