// Accept, Reject and Review a host's pending price increase. Accept and Reject send exactly
// {"pending_price_increase_id": N}; an increase that is no longer pending says so and the list
// is read again.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import type { PendingPriceIncrease } from '../../../api/types';
import { isApiError } from '../../../api/errors';
import { describeError } from '../../../core/describeError';
import { ensureSignedIn } from '../../../core/vscode/signedIn';
import { instanceName } from '../../../instances/instanceViewModel';
import { increaseDetails, increaseHeadline } from '../../priceIncreases';
import { billingSession } from '../billingSession';

export type DecisionResult = 'accepted' | 'rejected' | 'stale' | 'cancelled' | 'failed';

const nameOf = (services: Services, id: number): string => {
  const i = services.instances.get(id);
  return i ? instanceName(i) : `instance #${id}`;
};

/** An increase id, `{ pending_price_increase_id }`, an instance row `{ id }` / instance id, or a pick. */
async function resolveIncrease(services: Services, arg: unknown, verb: string): Promise<PendingPriceIncrease | number | undefined> {
  const w = billingSession(services).increases;
  await w.maybeFetch();
  if (typeof arg === 'number') return w.byId(arg) ?? w.forInstance(arg)[0] ?? arg;
  if (arg && typeof arg === 'object') {
    const o = arg as { pending_price_increase_id?: unknown; id?: unknown; kind?: unknown };
    if (typeof o.pending_price_increase_id === 'number') return w.byId(o.pending_price_increase_id) ?? o.pending_price_increase_id;
    if (typeof o.id === 'number') return w.forInstance(o.id)[0];
  }
  const rows = w.pending;
  if (!rows.length) {
    vscode.window.showInformationMessage('GPU Rental: no price increase is pending.');
    return undefined;
  }
  if (rows.length === 1) return rows[0];
  const pick = await vscode.window.showQuickPick(
    rows.map((p) => ({ label: nameOf(services, p.contract_id), detail: increaseHeadline(p, nameOf(services, p.contract_id), services.instances.get(p.contract_id)), p })),
    { title: `GPU Rental: ${verb} Price Increase`, placeHolder: 'Which pending price increase?' },
  );
  return pick?.p;
}

async function decide(services: Services, arg: unknown, how: 'accept' | 'reject'): Promise<DecisionResult> {
  if (!ensureSignedIn(services)) return 'failed';
  const target = await resolveIncrease(services, arg, how === 'accept' ? 'Accept' : 'Reject');
  if (target === undefined) return 'cancelled';
  const id = typeof target === 'number' ? target : target.pending_price_increase_id;
  const w = billingSession(services).increases;
  try {
    const api = await services.api();
    await (how === 'accept' ? api.acceptPriceIncrease(id) : api.rejectPriceIncrease(id));
  } catch (e) {
    if (isApiError(e) && (e.status === 404 || e.status === 409) && e.code === 'no_pending_price_increase') {
      vscode.window.showInformationMessage(`GPU Rental: price increase ${id} is no longer pending (it was accepted, rejected or withdrawn). The list was refreshed.`);
      await w.refresh();
      return 'stale';
    }
    vscode.window.showErrorMessage(`GPU Rental: could not ${how} price increase ${id}: ${describeError(e)}`);
    return 'failed';
  }
  const who = typeof target === 'number' ? `price increase ${id}` : `the new price of ${nameOf(services, target.contract_id)}`;
  services.log.info(`Price increase ${id} ${how}ed.`);
  vscode.window.showInformationMessage(how === 'accept' ? `GPU Rental: accepted ${who}.` : `GPU Rental: rejected ${who}.`);
  await w.refresh();
  services.instances.poller.nudge();
  return how === 'accept' ? 'accepted' : 'rejected';
}

/** gpuRental.acceptPriceIncrease(id | { pending_price_increase_id } | instance row) */
export const acceptPriceIncrease = (services: Services, arg?: unknown): Promise<DecisionResult> => decide(services, arg, 'accept');
/** gpuRental.rejectPriceIncrease(id | { pending_price_increase_id } | instance row) */
export const rejectPriceIncrease = (services: Services, arg?: unknown): Promise<DecisionResult> => decide(services, arg, 'reject');

/** gpuRental.reviewPriceIncrease: every figure (old → new per hour and month, contract dates), then Accept or Reject. */
export async function reviewPriceIncrease(services: Services, arg?: unknown): Promise<DecisionResult> {
  if (!ensureSignedIn(services)) return 'failed';
  const p = await resolveIncrease(services, arg, 'Review');
  if (p === undefined) return 'cancelled';
  if (typeof p === 'number') {
    vscode.window.showInformationMessage(`GPU Rental: price increase ${p} is no longer pending.`);
    return 'stale';
  }
  const name = nameOf(services, p.contract_id);
  const a = await vscode.window.showWarningMessage(
    `Price increase for ${name}`,
    { modal: true, detail: increaseDetails(p, name, services.instances.get(p.contract_id)).join('\n') },
    'Accept',
    'Reject',
  );
  if (a === 'Accept') return decide(services, p.pending_price_increase_id, 'accept');
  if (a === 'Reject') return decide(services, p.pending_price_increase_id, 'reject');
  return 'cancelled';
}
