// The create flow's rent stage: one create request, recorded in flight before it is sent, and
// what its answer means. Only a refusal listed in src/api/rentAgain.ts proves that nothing was
// rented; every other failure is reconciled through the list, and a rental the list does not
// show is NOT replaced on its own.
import type { CreateInstanceRequest, Offer } from '../api/types';
import { provenRefusal } from '../api/rentAgain';
import { SERVICE_PENALTY_MS } from '../api/pacing';
import { apiErrorOf, errorCode, errorKind, errorStatus } from '../core/describeError';
import { formatRate } from '../core/rates';
import type { CreateFlowInput, CreateFlowPorts, CreateFlowResult, InflightCreation, UnknownFate } from './flowTypes';
import { logText, userMessageOf } from './flowTypes';
import { markLate, putInflight, removeInflightLabel } from './inflight';
import { reconcileAmbiguous } from './pollUntilReady';
import * as l10n from '@vscode/l10n';

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

/** "Instance 12 ("label", $0.80/h)": the rental as the user knows it. */
export function unknownName(label: string, k: UnknownFate): string {
  const price = k.dphTotal !== undefined ? `, ${formatRate(k.dphTotal, k.dphTotal < 1 ? 3 : 2)}` : '';
  return k.instanceId !== undefined
    ? l10n.t('Instance {0} ("{1}"{2})', k.instanceId, label, price)
    : l10n.t('The rental labelled "{0}"{1}', label, price ? ` (${price.slice(2)})` : '');
}

/** "was last seen 3 min ago and the list no longer shows it" / "was sent, but the list has not shown it". */
export function unknownWhy(k: UnknownFate): string {
  if (k.lastSeenAgoMs !== undefined)
    return l10n.t(
      'was last seen {0} and the instance list no longer shows it: it may have been destroyed elsewhere (for example in the web console), or the list is lagging',
      ago(k.lastSeenAgoMs),
    );
  if (k.answer) return l10n.t('was answered "{0}", which does not prove that nothing was rented, and the instance list has not shown it', k.answer);
  return l10n.t('was sent, but the instance list has not shown it yet. It may still appear (the service sometimes shows new machines minutes late)');
}

function ago(ms: number): string {
  return ms < 90_000 ? l10n.t('{0} s ago', Math.max(1, Math.round(ms / 1000))) : l10n.t('{0} min ago', Math.round(ms / 60_000));
}

/** The result for a rental whose fate is unknown: nothing else was rented; it stays watched and is adopted if it appears. */
export function unknownResult(label: string, attempts: number, k: UnknownFate = {}): CreateFlowResult {
  return {
    outcome: 'unknown',
    ...(k.instanceId !== undefined ? { instanceId: k.instanceId } : {}),
    label,
    attempts,
    message: l10n.t(
      '{0} {1}, so nothing else was rented. It is watched: if it appears it is added to the Instances view with its SSH entry, and you are told. Check the Instances view before renting again.',
      unknownName(label, k),
      unknownWhy(k),
    ),
  };
}

/** Sends one create request for `offer` as `label`; the record is in flight before it goes out. */
export async function rentOnce(c: RentContext, offer: Offer, label: string, req: CreateInstanceRequest): Promise<RentStep> {
  const { ports, input } = c;
  const { api, log, clock, state } = ports;
  const signal = input.signal;
  await putInflight(state, { ...c.record, label });
  try {
    const res = await api.createInstance(offer.id, req, {
      interruptible: c.bidPrice !== undefined,
      secrets: input.secrets ?? [],
      ...(signal ? { signal } : {}),
    });
    return { kind: 'rented', id: res.new_contract };
  } catch (e) {
    const refusal = provenRefusal(e);
    if (refusal?.then === 'next-offer') {
      await removeInflightLabel(state, label);
      log.info(`create: offer ${offer.id} is gone (${errorCode(e) ?? errorStatus(e)}: ${refusal.meaning}); trying the next match`);
      return { kind: 'offer-gone', problem: l10n.t('Offer {0} is not available ({1}).', offer.id, refusal.meaning) };
    }
    if (refusal?.then === 'wait-and-resend' && c.createWaits.n < MAX_CREATE_WAITS) {
      // A 429 refuses the request before it is processed (nothing was rented): wait out the
      // service's creation threshold and penalty (the pacing table), then send it again.
      await removeInflightLabel(state, label);
      c.createWaits.n++;
      const waitMs = Math.max(SERVICE_PENALTY_MS.create, (apiErrorOf(e)?.retryAfterSec ?? 0) * 1000);
      log.info(`create: renting offer ${offer.id} was refused as too frequent (429); sending it again in ${Math.round(waitMs / 1000)} s`);
      c.progress(l10n.t('The service asks to slow down; trying again in {0} s…', Math.round(waitMs / 1000)));
      await clock.sleep(waitMs, signal);
      if (signal?.aborted) return { kind: 'result', result: { outcome: 'cancelled', message: l10n.t('Cancelled. Nothing was rented.') } };
      return { kind: 'again' };
    }
    if (refusal) {
      await removeInflightLabel(state, label);
      log.warn(`create: renting offer ${offer.id} was refused (${refusal.meaning}): ${logText(e)}`);
      return {
        kind: 'result',
        result: { outcome: 'failed', message: l10n.t('Renting failed; nothing was rented. {0}', userMessageOf(e)), attempts: c.attempt },
      };
    }
    // Anything else proves nothing (src/api/rentAgain.ts): find out through the list.
    const answer =
      errorKind(e) === 'http' || errorKind(e) === 'rate_limited' || errorKind(e) === 'auth'
        ? (apiErrorOf(e)?.msg ?? apiErrorOf(e)?.code)?.slice(0, 200)
        : undefined;
    log.warn(
      `create: outcome of renting offer ${offer.id} is unknown (${errorKind(e) ?? 'error'}${e instanceof Error && 'causeKind' in e && e.causeKind ? `: ${String(e.causeKind)}` : ''}${apiErrorOf(e)?.status !== undefined ? ` ${apiErrorOf(e)!.status}` : ''}); checking the instance list for "${label}"`,
    );
    c.progress(l10n.t('No clear answer from the service; checking whether the instance was created…'));
    return reconcileLost(c, offer, label, answer);
  }
}

/** The create's answer is unknown: find out through the list before anything else happens (even if the user cancelled). */
async function reconcileLost(c: RentContext, offer: Offer, label: string, answer: string | undefined): Promise<RentStep> {
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
      return { kind: 'result', result: unknownResult(label, c.attempt, { dphTotal: offer.dph_total, ...(answer ? { answer } : {}) }) };
    }
    log.info(
      `create: the instance list showed no instance labelled "${label}" in ${rec.reads} reads over ${Math.round(rec.waitedMs / 1000)} s; its fate is unknown`,
    );
    const choice =
      input.confirm === false || input.signal?.aborted
        ? 'stop'
        : ((await ports.prompts.notFound?.({ label, waitedMs: rec.waitedMs, dphTotal: offer.dph_total, ...(answer ? { answer } : {}) })) ?? 'stop');
    if (choice === 'wait') continue;
    await markLate(state, { label });
    if (choice === 'stop') return { kind: 'result', result: unknownResult(label, c.attempt, { dphTotal: offer.dph_total, ...(answer ? { answer } : {}) }) };
    log.info(`create: renting again as asked; "${label}" stays watched and is adopted if it appears`);
    return {
      kind: 'rent-again',
      problem: l10n.t('The service gave no clear answer when renting offer {0}, and the instance list did not show the instance.', offer.id),
    };
  }
}
