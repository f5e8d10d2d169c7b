// Accept…, Reject… and Review… a host's pending price increase: VS Code's prompts for the flow in
// src/billing/priceDecision.ts (every decision shown with its figures in one modal whose default
// button decides nothing; exactly {"pending_price_increase_id": N} sent for the id shown).
import * as vscode from 'vscode';
import { ensureSignedIn } from '../../../core/vscode/signedIn';
import { instanceName } from '../../../core/instanceWords';
import { decideIncrease, decisionTarget, type Decision, type DecisionPrompts, type DecisionResult, type DecisionVerb } from '../../priceDecision';
import { billingSession, type BillingServices } from '../billingSession';
import { tellDone } from '../../../core/vscode/statusMessage';

/** The modal's first (default) button: decides nothing, as Escape. */
export const DECIDE_LATER = 'Decide Later';
const BUTTON: Record<Decision, string> = { accept: 'Accept', reject: 'Reject' };
const TITLE: Record<DecisionVerb, string> = { accept: 'Accept', reject: 'Reject', review: 'Review' };

const prompts: DecisionPrompts = {
  pick: async (choices, verb) =>
    (
      await vscode.window.showQuickPick(
        choices.map((c) => ({ label: c.name, description: `#${c.increase.contract_id}`, detail: c.headline, c })),
        {
          title: vscode.l10n.t('GPU Rental: {0} Price Increase', TITLE[verb]),
          placeHolder: vscode.l10n.t('Which pending price increase? Its figures are shown before anything is decided.'),
        },
      )
    )?.c,
  confirm: async (shown, offer) => {
    const head = shown.changed
      ? `The price increase for ${shown.name} changed since it was shown: these are the new figures.`
      : `Price increase for ${shown.name}`;
    const a = await vscode.window.showWarningMessage(head, { modal: true, detail: shown.details.join('\n') }, DECIDE_LATER, ...offer.map((d) => BUTTON[d]));
    return offer.find((d) => BUTTON[d] === a);
  },
  done: tellDone,
  info: (m) => {
    vscode.window.showInformationMessage(m);
  },
  error: (m) => {
    vscode.window.showErrorMessage(m);
  },
};

async function decide(services: BillingServices, arg: unknown, verb: DecisionVerb): Promise<DecisionResult> {
  ensureSignedIn(services);
  const session = billingSession(services);
  return decideIncrease(
    {
      read: async () => {
        await session.increases.refresh();
        if (session.increases.error) throw new Error(session.increases.error);
        return session.increases.pending;
      },
      instance: (id) => services.instances.get(id),
      name: (id) => {
        const i = services.instances.get(id);
        return i ? instanceName(i) : `instance #${id}`;
      },
      send: async (how, id) => {
        const api = await services.api();
        await (how === 'accept' ? api.acceptPriceIncrease(id) : api.rejectPriceIncrease(id));
        session.decided(id);
        services.instances.poller.nudge();
      },
      prompts,
      log: (m) => services.log.info(m),
    },
    verb,
    decisionTarget(arg),
  );
}

/** gpuRental.acceptPriceIncrease(id | increase | instance row): shows the figures, then Accept. */
export const acceptPriceIncrease = (services: BillingServices, arg?: unknown): Promise<DecisionResult> => decide(services, arg, 'accept');
/** gpuRental.rejectPriceIncrease(id | increase | instance row): shows the figures, then Reject. */
export const rejectPriceIncrease = (services: BillingServices, arg?: unknown): Promise<DecisionResult> => decide(services, arg, 'reject');
/** gpuRental.reviewPriceIncrease(id | increase | instance row): every figure, then Accept or Reject. */
export const reviewPriceIncrease = (services: BillingServices, arg?: unknown): Promise<DecisionResult> => decide(services, arg, 'review');
