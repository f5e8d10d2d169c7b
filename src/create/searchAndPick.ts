// The create flow's first stages: search the offers, pick one (or check the preselected one
// against the template), confirm the price. Nothing is rented here.
import type { Offer } from '../api/types';
import type { Template } from './templateSchema';
import { buildOfferQuery } from './requestBuilder';
import { describeOffer, rankOffers } from './ranking';
import { offerSatisfies } from './offerFit';
import { formatRate } from '../core/rates';
import { errorKind } from '../core/describeError';
import type { CreateFlowInput, CreateFlowPorts, CreateFlowResult, Stage } from './flowTypes';
import { logText, userMessageOf } from './flowTypes';
import * as l10n from '@vscode/l10n';

export const cancelledBeforeRent = (): CreateFlowResult => ({ outcome: 'cancelled', message: l10n.t('Cancelled. Nothing was rented.') });

export interface Picked {
  /** The template, with the bid the user may have changed in the confirmation. */
  template: Template;
  /** The picked offer first, then the other matches in rank order. */
  candidates: Offer[];
  bidPrice: number | undefined;
  confirmedPrice: number;
  /** The price confirmation ended now (elapsed time counts from here). */
  confirmedAt?: number;
}

type Progress = (stage: Stage, message: string) => void;

async function search(ports: CreateFlowPorts, t: Template, bidPrice: number | undefined, signal: AbortSignal | undefined): Promise<Offer[] | CreateFlowResult> {
  try {
    const found = await ports.api.searchOffers(buildOfferQuery(t), signal ? { signal } : undefined);
    return rankOffers(found, { rank: t.offer?.rank ?? 'cheapest', maxDphTotal: t.offer?.maxDphTotal, bidPrice });
  } catch (e) {
    if (signal?.aborted || errorKind(e) === 'aborted') return cancelledBeforeRent();
    ports.log.warn(`create: offer search failed: ${logText(e)}`);
    return { outcome: 'failed', message: l10n.t('Searching offers failed. {0}', userMessageOf(e)), attempts: 0 };
  }
}

/** The preselected offer, read afresh by id (its current price), and checked against the template. */
async function preselected(
  ports: CreateFlowPorts,
  input: CreateFlowInput,
  t: Template,
  ranked: Offer[],
  progress: Progress,
): Promise<Offer | CreateFlowResult> {
  const { api, log } = ports;
  const signal = input.signal;
  const pre = input.offer!;
  const wanted = typeof pre === 'number' ? pre : pre.id;
  let first = ranked.find((o) => o.id === wanted);
  if (!first) {
    try {
      first = (
        await api.searchOffers(
          { offerId: wanted, type: t.offer?.type ?? 'on-demand', ...(t.offer?.verified === false ? { verified: false } : {}) },
          signal ? { signal } : undefined,
        )
      ).find((o) => o.id === wanted);
    } catch (e) {
      if (signal?.aborted || errorKind(e) === 'aborted') return cancelledBeforeRent();
      log.debug(`create: reading offer ${wanted} again failed: ${logText(e)}`);
    }
    first ??= typeof pre === 'object' ? pre : undefined;
  }
  if (!first)
    return {
      outcome: 'failed',
      message: l10n.t(
        'Offer {0} is no longer available (rented by someone else, or withdrawn). Nothing was rented. Search again and pick another offer.',
        wanted,
      ),
      attempts: 0,
    };
  const reasons = offerSatisfies(t, first);
  if (reasons.length) {
    const why = l10n.t('Offer {0} ({1}) does not fit template "{2}": {3}.', wanted, describeOffer(first), t.name, reasons.join('; '));
    log.info(`create: ${why}`);
    if (input.confirm === false || !ports.prompts.confirmOutsideTemplate)
      return {
        outcome: 'failed',
        message: l10n.t("{0} Nothing was rented. Pick an offer that fits, or change the template's offer filters.", why),
        attempts: 0,
      };
    progress('confirming', why);
    if (!(await ports.prompts.confirmOutsideTemplate(first, t, reasons)) || signal?.aborted) return cancelledBeforeRent();
  }
  return first;
}

/** Search, pick and confirm: the offers to try in order, or the result when nothing is to be rented. */
export async function searchAndPick(ports: CreateFlowPorts, input: CreateFlowInput, progress: Progress): Promise<Picked | CreateFlowResult> {
  let t = input.template;
  const signal = input.signal;
  let bidPrice = t.offer?.type === 'bid' ? t.offer.bidPrice : undefined;

  progress('searching', l10n.t('Searching offers for "{0}"…', t.name));
  const ranked = await search(ports, t, bidPrice, signal);
  if (!Array.isArray(ranked)) return ranked;
  ports.log.info(`create: template "${t.name}": ${ranked.length} matching offer(s)`);

  let first: Offer | undefined;
  if (input.offer !== undefined) {
    const got = await preselected(ports, input, t, ranked, progress);
    if ('outcome' in got) return got;
    first = got;
  } else {
    if (ranked.length === 0)
      return {
        outcome: 'failed',
        message: l10n.t(
          'No offers match template "{0}". Loosen its offer requirements (maxDphTotal, gpuNames, minReliability, minGpuRamGb) and try again.',
          t.name,
        ),
        attempts: 0,
      };
    first = await ports.prompts.pickOffer(ranked, t);
    if (!first || signal?.aborted) return cancelledBeforeRent();
  }
  const picked = first;
  const candidates: Offer[] = [picked, ...ranked.filter((o) => o.id !== picked.id)];

  let confirmedAt: number | undefined;
  if (input.confirm !== false) {
    progress('confirming', `Confirm ${describeOffer(picked)}`);
    const yes = await ports.prompts.confirmRent(picked, t, bidPrice);
    if (!yes || signal?.aborted) return cancelledBeforeRent();
    if (typeof yes === 'object' && bidPrice !== undefined && Number.isFinite(yes.bidPrice) && yes.bidPrice > 0 && t.offer) {
      // The bid changed in the confirmation: the request's price is the template's bidPrice.
      bidPrice = yes.bidPrice;
      t = { ...t, offer: { ...t.offer, bidPrice } };
      ports.log.info(`create: bid changed to ${formatRate(bidPrice, 3)} in the confirmation`);
    }
    confirmedAt = ports.clock.now();
  }
  return { template: t, candidates, bidPrice, confirmedPrice: picked.dph_total, ...(confirmedAt !== undefined ? { confirmedAt } : {}) };
}
