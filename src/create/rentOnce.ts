// The create flow's rent stage: one create request, recorded in flight before it is sent, and
// what its answer means. A refusal (offer gone, 429, a 4xx) rented nothing; an ambiguous answer
// is reconciled through the list; a rental the list never shows is NOT replaced on its own.
import type { CreateInstanceRequest, Offer } from '../api/types';
import { isAmbiguousCreate, isOfferGone } from '../api/visibility';
import { SERVICE_PENALTY_MS } from '../api/pacing';
import { apiErrorOf, errorCode, errorKind, errorStatus } from '../core/describeError';
import type { CreateFlowInput, CreateFlowPorts, CreateFlowResult, InflightCreation } from './flowTypes';
import { logText, userMessageOf } from './flowTypes';
import { markLate, putInflight, removeInflightLabel } from './inflight';
import { reconcileAmbiguous } from './pollUntilReady';

/** 429 answers to a creation that are waited out before the flow gives up (nothing was rented). */
const MAX_CREATE_WAITS = 3;

export type RentStep =
  | { kind: 'rented'; id: number }
  /** The offer was taken: try the next match. */
  | { kind: 'offer-gone'; problem: string }
  /** Refused before it was looked at (429), waited out: send it again (not an attempt). */
  | { kind: 'again' }
  /** The list shows nothing for this request, and the user chose to rent again (the first stays watched). */
  | { kind: 'rent-again'; problem: string }
  | { kind: 'result'; result: CreateFlowResult };

export interface RentContext {
  ports: CreateFlowPorts;
  input: CreateFlowInput;
  intervalMs: number;
  attempt: number;
  bidPrice: number | undefined;
  /** 429s waited out so far (shared across attempts). */
  createWaits: { n: number };
  record: Omit<InflightCreation, 'instanceId' | 'label'>;
  progress(message: string): void;
}

/** The message for a rental whose fate is unknown: it stays watched and is adopted if it appears. */
export function unknownResult(label: string, attempts: number, instanceId?: number): CreateFlowResult {
  const what = instanceId !== undefined ? `Instance ${instanceId} ("${label}")` : `The rental labelled "${label}"`;
  return {
    outcome: 'unknown',
    ...(instanceId !== undefined ? { instanceId } : {}),
    label,
    attempts,
    message: `${what} was sent, but the instance list has not shown it yet. It may still appear (the service sometimes shows new machines minutes late), so nothing else was rented. It is watched: if it appears it is added to the Instances view with its SSH entry, and you are told. Check the Instances view before renting again.`,
  };
}

/** Sends one create request for `offer` as `label`; the record is in flight before it goes out. */
export async function rentOnce(c: RentContext, offer: Offer, label: string, req: CreateInstanceRequest): Promise<RentStep> {
  const { ports, input } = c;
  const { api, log, clock, state } = ports;
  const signal = input.signal;
  await putInflight(state, { ...c.record, label });
  try {
    const res = await api.createInstance(offer.id, req, { interruptible: c.bidPrice !== undefined, secrets: input.secrets ?? [], ...(signal ? { signal } : {}) });
    return { kind: 'rented', id: res.new_contract };
  } catch (e) {
    if (isOfferGone(e)) {
      await removeInflightLabel(state, label);
      log.info(`create: offer ${offer.id} is gone (${errorCode(e) ?? errorStatus(e) ?? 'unavailable'}); trying the next match`);
      return { kind: 'offer-gone', problem: `Offer ${offer.id} was rented by someone else.` };
    }
    if (errorKind(e) === 'rate_limited' && c.createWaits.n < MAX_CREATE_WAITS) {
      // A 429 refuses the request before it is processed (nothing was rented): wait out the
      // service's creation threshold and penalty (the pacing table), then send it again.
      await removeInflightLabel(state, label);
      c.createWaits.n++;
      const waitMs = Math.max(SERVICE_PENALTY_MS.create, (apiErrorOf(e)?.retryAfterSec ?? 0) * 1000);
      log.info(`create: renting offer ${offer.id} was refused as too frequent (429); sending it again in ${Math.round(waitMs / 1000)} s`);
      c.progress(`The service asks to slow down; trying again in ${Math.round(waitMs / 1000)} s…`);
      await clock.sleep(waitMs, signal);
      if (signal?.aborted) return { kind: 'result', result: { outcome: 'cancelled', message: 'Cancelled. Nothing was rented.' } };
      return { kind: 'again' };
    }
    if (!isAmbiguousCreate(e)) {
      await removeInflightLabel(state, label);
      log.warn(`create: renting offer ${offer.id} failed: ${logText(e)}`);
      return { kind: 'result', result: { outcome: 'failed', message: `Renting failed. ${userMessageOf(e)}`, attempts: c.attempt } };
    }
    log.warn(`create: outcome of renting offer ${offer.id} is unknown (${errorKind(e)}${e instanceof Error && 'causeKind' in e && e.causeKind ? `: ${String(e.causeKind)}` : ''}); checking the instance list for "${label}"`);
    c.progress('No readable answer from the service; checking whether the instance was created…');
    return reconcileLost(c, offer, label);
  }
}

/** The create's answer is unknown: find out through the list before anything else happens (even if the user cancelled). */
async function reconcileLost(c: RentContext, offer: Offer, label: string): Promise<RentStep> {
  const { ports, input } = c;
  const { log, state } = ports;
  for (;;) {
    const rec = await reconcileAmbiguous(ports, label, c.intervalMs);
    if ('found' in rec) {
      log.info(`create: the instance list shows instance ${rec.found.id} labelled "${label}": the create had gone through`);
      return { kind: 'rented', id: rec.found.id };
    }
    if ('unknown' in rec || 'aborted' in rec) {
      if ('unknown' in rec) log.error(`create: could not check for "${label}": ${logText(rec.error)}`);
      await markLate(state, { label });
      return { kind: 'result', result: unknownResult(label, c.attempt) };
    }
    log.info(`create: the instance list showed no instance labelled "${label}" in ${rec.reads} reads over ${Math.round(rec.waitedMs / 1000)} s; its fate is unknown`);
    const answer = input.confirm === false || input.signal?.aborted ? 'stop' : ((await ports.prompts.notFound?.({ label, waitedMs: rec.waitedMs })) ?? 'stop');
    if (answer === 'wait') continue;
    await markLate(state, { label });
    if (answer === 'stop') return { kind: 'result', result: unknownResult(label, c.attempt) };
    log.info(`create: renting again as asked; "${label}" stays watched and is adopted if it appears`);
    return { kind: 'rent-again', problem: `The service gave no readable answer when renting offer ${offer.id}, and the instance list did not show the instance.` };
  }
}
