// The create flow's questions as VS Code dialogs (src/create/flowTypes.ts FlowPrompts).
import * as vscode from 'vscode';
import type { Offer } from '../../api/types';
import type { Template } from '../templateSchema';
import { describeOffer } from '../ranking';
import { offerPickDetail } from '../../instances/instanceDetails';
import { formatRate } from '../../core/rates';
import type { FailedBootAnswer, FlowPrompts, NotFoundAnswer } from '../flowTypes';
import { unknownName, unknownWhy } from '../rentOnce';
import { guardSummary, type GuardRequest } from '../../guard/plan';

/** What the prompts need of the command's arguments. */
export interface PromptArgs {
  /** Scripts and tests: the answer to "keep or destroy" on cancel, instead of asking. */
  onCancel?: 'keep' | 'destroy';
  /** Tests: the answer to "the list has not shown it: wait, rent again or stop?", instead of asking. */
  onNotFound?: NotFoundAnswer;
}

const DESTROY = 'Destroy';
const KEEP = 'Keep (decide later)';

function money(n: number): string {
  return formatRate(n, n < 1 ? 3 : 2);
}

/** The Rent question of one offer; an interruptible one may change its bid first (Change Bid…). */
async function confirmRent(offer: Offer, t: Template, bidPrice: number | undefined, guard: GuardRequest | undefined): Promise<boolean | { bidPrice: number }> {
  let bid = bidPrice;
  for (;;) {
    const what = `Rent ${offer.num_gpus}× ${offer.gpu_name} for "${t.name}"`;
    const question =
      bid !== undefined
        ? `${what} as an interruptible instance, bidding ${money(bid)}? The offer's listed price is ${money(offer.dph_total)}.`
        : `${what} on demand at ${money(offer.dph_total)}?`;
    const bidNote =
      bid !== undefined ? '\nInterruptible: you pay your bid, and the instance is stopped when someone outbids you (its disk stays and is billed).' : '';
    const answer = await vscode.window.showWarningMessage(
      question,
      {
        modal: true,
        detail: vscode.l10n.t(
          '{0}\nBilling starts now and continues until you destroy the instance (disk is billed while stopped).{1}\n{2}',
          describeOffer(offer),
          bidNote,
          guardSummary(guard, offer.dph_total),
        ),
      },
      vscode.l10n.t('Rent'),
      ...(bid !== undefined ? ['Change Bid…'] : []),
    );
    if (answer === vscode.l10n.t('Rent')) return bid !== undefined && bid !== bidPrice ? { bidPrice: bid } : true;
    if (answer !== 'Change Bid…' || bid === undefined) return false;
    const min = typeof offer.min_bid === 'number' ? offer.min_bid : 0;
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('Your bid for {0}× {1}', offer.num_gpus, offer.gpu_name),
      prompt: vscode.l10n.t('Dollars per hour{0}. A higher bid is outbid less often.', min > 0 ? `, at least the minimum bid ${money(min)}` : ''),
      value: String(bid),
      placeHolder: vscode.l10n.t('e.g. 0.35'),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const n = Number(v.trim());
        if (!v.trim() || !Number.isFinite(n) || n <= 0) return 'Enter a price in $/h, e.g. 0.35.';
        if (n < min) return `The minimum bid for this offer is ${money(min)}.`;
        return undefined;
      },
    });
    if (typed !== undefined) bid = Number(typed.trim());
  }
}

export function vscodePrompts(args: PromptArgs, guard?: GuardRequest): FlowPrompts {
  return {
    async pickOffer(offers: readonly Offer[], t: Template) {
      const best = t.offer?.rank === 'best-value' ? 'best value first' : 'cheapest first';
      const pick = await vscode.window.showQuickPick(
        offers.slice(0, 50).map((o, i) => ({
          label: `${o.num_gpus}× ${o.gpu_name}`,
          description: `${money(o.dph_total)}${i === 0 ? ' · best match' : ''}`,
          detail: offerPickDetail(o),
          offer: o,
        })),
        { title: vscode.l10n.t('"{0}": {1} matching offers ({2})', t.name, offers.length, best), matchOnDetail: true, ignoreFocusOut: true },
      );
      return pick?.offer;
    },
    confirmRent: (offer: Offer, t: Template, bidPrice: number | undefined) => confirmRent(offer, t, bidPrice, guard),
    async confirmOutsideTemplate(offer: Offer, t: Template, reasons: readonly string[]) {
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Offer {0} ({1}× {2}, {3}) does not fit template "{4}". Rent it anyway?',
          offer.id,
          offer.num_gpus,
          offer.gpu_name,
          money(offer.dph_total),
          t.name,
        ),
        {
          modal: true,
          detail: vscode.l10n.t(
            "It fails the template's offer filters:\n• {0}\n\nRent it only if you meant to; otherwise pick an offer that fits or change the template.",
            reasons.join('\n• '),
          ),
        },
        vscode.l10n.t('Rent Anyway'),
      );
      return answer === vscode.l10n.t('Rent Anyway');
    },
    async keepOrDestroy(id: number, reason: 'cancelled' | 'timeout') {
      if (args.onCancel) return args.onCancel;
      const why =
        reason === 'timeout' ? `Instance ${id} has not come up after a long wait.` : `Creation cancelled, but instance ${id} is already rented and billing.`;
      // Two answers, no ambiguous "Cancel": Keep is the close affordance, so Escape keeps it too.
      const answer = await vscode.window.showWarningMessage<vscode.MessageItem>(
        vscode.l10n.t('{0} Destroy it, or keep it and decide later?', why),
        {
          modal: true,
          detail: vscode.l10n.t(
            'Destroy: it is removed and billing stops. Keep (decide later): it stays in the Instances view, keeps billing, and its SSH entry is written when it runs.',
          ),
        },
        { title: DESTROY },
        { title: KEEP, isCloseAffordance: true },
      );
      // Dismissing keeps it: it stays tracked, and nothing is destroyed without a clear yes.
      return answer?.title === DESTROY ? 'destroy' : 'keep';
    },
    async notFound(what) {
      if (args.onNotFound) return args.onNotFound;
      // What is known: the machine's id (or label), its price, when a read last showed it, or the service's answer.
      const answer = await vscode.window.showWarningMessage<vscode.MessageItem & { value: NotFoundAnswer }>(
        vscode.l10n.t(
          '{0} {1} ({2} min since it was sent). It may exist and bill. Keep waiting, or rent another machine?',
          unknownName(what.label, what),
          unknownWhy(what),
          Math.max(1, Math.round(what.waitedMs / 60_000)),
        ),
        {
          modal: true,
          detail: vscode.l10n.t(
            'Keep Waiting: the flow goes on watching it.\nRent Another: a second machine is rented; the first stays watched and, if it appears, is added to the Instances view and you are told (destroy it there if you do not need two).\nStop (the default): nothing else is rented; the first stays watched.',
          ),
        },
        { title: vscode.l10n.t('Keep Waiting'), value: 'wait' },
        { title: vscode.l10n.t('Rent Another'), value: 'rent-again' },
        { title: vscode.l10n.t('Stop'), value: 'stop', isCloseAffordance: true },
      );
      return answer?.value ?? 'stop';
    },
    async failedBoot(what) {
      // One question, no default that spends: Escape (the close affordance) keeps it.
      const next = what.next;
      const answer = await vscode.window.showWarningMessage<vscode.MessageItem & { value: FailedBootAnswer }>(
        vscode.l10n.t(
          'Instance {0} ("{1}") became "{2}" while starting{3}. It will not run, and it bills {4} while kept. What should happen to it?',
          what.instanceId,
          what.label,
          what.status,
          what.statusMsg ? `: ${what.statusMsg}` : '',
          what.keptCost,
        ),
        {
          modal: true,
          detail: [
            'Its log was requested: Show Instance Logs on the next notice shows why it failed.',
            next
              ? `Destroy and Rent Next Match: it is destroyed, then ${describeOffer(next)} is rented at ${money(next.dph_total)}.`
              : 'No other match is left to rent (or no attempt is left).',
            'Destroy Only: it is destroyed and nothing else is rented.',
            'Keep It: it stays in the Instances view, billing, for you to look at; nothing else is rented.',
          ].join('\n'),
        },
        ...(next ? [{ title: vscode.l10n.t('Destroy and Rent Next Match ({0})', money(next.dph_total)), value: 'destroy-and-rent-next' as const }] : []),
        { title: vscode.l10n.t('Destroy Only'), value: 'destroy' },
        { title: vscode.l10n.t('Keep It'), value: 'keep', isCloseAffordance: true },
      );
      return answer?.value ?? 'keep';
    },
  };
}
