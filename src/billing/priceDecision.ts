// Accept, Reject and Review of a host's pending price increase, without VS Code (the commands in
// vscode/commands/priceIncrease.ts hand over the prompts). The rules (issue 33 item 4, issue 35
// item 1): the list is read before anything is decided; only an increase id the user was shown
// is sent, in the same prompt as its figures; an id that is not a pending increase is said to be
// no longer pending (never looked up as an instance id); a decision is always shown first, even
// of a lone pending increase; figures that changed since they were shown are shown again.
import type { Instance, PendingPriceIncrease } from '../api/types';
import { isApiError } from '../api/errors';
import { describeError } from '../core/describeError';
import { figuresKey, increaseDetails, increaseHeadline } from './priceIncreases';
import * as l10n from '@vscode/l10n';

export type DecisionResult = 'accepted' | 'rejected' | 'stale' | 'cancelled' | 'failed';
export type Decision = 'accept' | 'reject';
/** The command: Accept…, Reject… or Review… (which offers both). */
export type DecisionVerb = Decision | 'review';

/** One increase as the user is shown it. */
export interface ShownIncrease {
  id: number;
  increase: PendingPriceIncrease;
  name: string;
  headline: string;
  /** Every figure, one line each, and what Accept and Reject do. */
  details: string[];
  /** The figures differ from those shown before (the notification, or an earlier prompt). */
  changed: boolean;
}

/** How the flow asks the user. */
export interface DecisionPrompts {
  /** Several increases: which one? Each choice carries its headline. undefined: cancelled. */
  pick(choices: readonly ShownIncrease[], verb: DecisionVerb): Promise<ShownIncrease | undefined>;
  /** One prompt with every figure, offering `offer` (no decision is its default). undefined: cancelled. */
  confirm(shown: ShownIncrease, offer: readonly Decision[]): Promise<Decision | undefined>;
  info(message: string): void;
  /** The decision was sent (a short confirmation). */
  done(message: string): void;
  error(message: string): void;
}

export interface DecisionDeps {
  /** Reads the pending increases now (throws when they cannot be read). */
  read(): Promise<readonly PendingPriceIncrease[]>;
  instance(id: number): Instance | undefined;
  name(id: number): string;
  /** PUT accept-/reject-price-increase with exactly {"pending_price_increase_id": id}. */
  send(how: Decision, id: number): Promise<unknown>;
  prompts: DecisionPrompts;
  log(message: string): void;
}

/** What to decide on: an increase id (a notification's, a script's), an instance (its row), or nothing (a pick). */
export interface DecisionTarget {
  increaseId?: number;
  instanceId?: number;
  /** The increase as a notification showed it (its figures). */
  shown?: PendingPriceIncrease;
}

/**
 * A command argument: an increase id (number), an increase (`{ pending_price_increase_id, … }`,
 * its figures as shown), or an instance row (`{ id }`, `{ instance: { id } }`).
 */
export function decisionTarget(arg: unknown): DecisionTarget {
  if (typeof arg === 'number') return { increaseId: arg };
  if (!arg || typeof arg !== 'object') return {};
  const o = arg as { pending_price_increase_id?: unknown; contract_id?: unknown; id?: unknown; instance?: { id?: unknown } };
  if (o.pending_price_increase_id !== undefined) {
    const id = o.pending_price_increase_id;
    return typeof id === 'number'
      ? { increaseId: id, ...(typeof o.contract_id === 'number' ? { shown: arg as PendingPriceIncrease } : {}) }
      : { increaseId: Number.NaN };
  }
  if (typeof o.id === 'number') return { instanceId: o.id };
  if (o.instance && typeof o.instance.id === 'number') return { instanceId: o.instance.id };
  return {};
}

const MAX_ROUNDS = 3;
const OFFER: Record<DecisionVerb, readonly Decision[]> = { accept: ['accept'], reject: ['reject'], review: ['accept', 'reject'] };

function show(deps: DecisionDeps, p: PendingPriceIncrease, changed: boolean): ShownIncrease {
  const name = deps.name(p.contract_id);
  const inst = deps.instance(p.contract_id);
  return { id: p.pending_price_increase_id, increase: p, name, headline: increaseHeadline(p, name, inst), details: increaseDetails(p, name, inst), changed };
}

function noLongerPending(deps: DecisionDeps, id: number): 'stale' {
  deps.prompts.info(
    `Price increase ${Number.isFinite(id) ? id : '(no id)'} is no longer pending (it was accepted, rejected or withdrawn). The list was refreshed.`,
  );
  return 'stale';
}

async function read(deps: DecisionDeps): Promise<readonly PendingPriceIncrease[] | undefined> {
  try {
    return await deps.read();
  } catch (e) {
    deps.prompts.error(l10n.t('Could not read the pending price increases: {0}', describeError(e)));
    return undefined;
  }
}

/** The increase to decide on, or the result when there is none. */
async function choose(
  deps: DecisionDeps,
  verb: DecisionVerb,
  t: DecisionTarget,
  rows: readonly PendingPriceIncrease[],
): Promise<PendingPriceIncrease | DecisionResult> {
  if (t.increaseId !== undefined) return rows.find((p) => p.pending_price_increase_id === t.increaseId) ?? noLongerPending(deps, t.increaseId);
  const candidates = t.instanceId !== undefined ? rows.filter((p) => p.contract_id === t.instanceId) : rows;
  if (!candidates.length) {
    deps.prompts.info(t.instanceId !== undefined ? `No price increase is pending for ${deps.name(t.instanceId)}.` : 'No price increase is pending.');
    return 'cancelled';
  }
  if (candidates.length === 1) return candidates[0]!;
  const pick = await deps.prompts.pick(
    candidates.map((p) => show(deps, p, false)),
    verb,
  );
  return pick ? pick.increase : 'cancelled';
}

/** Accept…, Reject… or Review… of one pending increase. */
export async function decideIncrease(deps: DecisionDeps, verb: DecisionVerb, target: DecisionTarget): Promise<DecisionResult> {
  const rows = await read(deps);
  if (!rows) return 'failed';
  const chosen = await choose(deps, verb, target, rows);
  if (typeof chosen === 'string') return chosen;
  let p = chosen;
  let seen = target.shown?.pending_price_increase_id === p.pending_price_increase_id ? figuresKey(target.shown) : figuresKey(p);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const shown = show(deps, p, seen !== figuresKey(p));
    const how = await deps.prompts.confirm(shown, OFFER[verb]);
    if (how === undefined || !OFFER[verb].includes(how)) return 'cancelled';
    // The prompt may have been open for a while: decide only on the figures it showed.
    const now = await read(deps);
    if (!now) return 'failed';
    const current = now.find((x) => x.pending_price_increase_id === shown.id);
    if (!current) return noLongerPending(deps, shown.id);
    seen = figuresKey(p);
    if (figuresKey(current) !== seen) {
      p = current;
      continue;
    }
    return send(deps, how, shown);
  }
  deps.prompts.info(`The figures of price increase ${p.pending_price_increase_id} kept changing while you decided; nothing was sent. Review it again.`);
  return 'cancelled';
}

async function send(deps: DecisionDeps, how: Decision, shown: ShownIncrease): Promise<DecisionResult> {
  try {
    await deps.send(how, shown.id);
  } catch (e) {
    if (isApiError(e) && (e.status === 404 || e.status === 409) && e.code === 'no_pending_price_increase') {
      await deps.read().catch(() => undefined);
      return noLongerPending(deps, shown.id);
    }
    deps.prompts.error(
      how === 'accept'
        ? l10n.t('Could not accept price increase {0}: {1}', shown.id, describeError(e))
        : l10n.t('Could not reject price increase {0}: {1}', shown.id, describeError(e)),
    );
    return 'failed';
  }
  deps.log(`Price increase ${shown.id} ${how}ed.`);
  deps.prompts.done(how === 'accept' ? l10n.t('Accepted the new price of {0}.', shown.name) : l10n.t('Rejected the new price of {0}.', shown.name));
  await deps.read().catch(() => undefined);
  return how === 'accept' ? 'accepted' : 'rejected';
}
