// The tools that change an instance: start (spends: two steps, a quote then its id), stop,
// destroy (the label or id echoed back) and the decision on a host's price increase (changes a
// price: two steps). The caps are checked when quoting and again when confirming; a refusal
// sends nothing.
import type { PendingPriceIncrease } from '../api/types';
import { currentRate } from '../core/rates';
import { increaseFigures, increaseHeadline } from '../billing/priceIncreases';
import { removeInflight } from '../create/inflight';
import { checkCaps, capsLine, rate, spendingForCaps } from './caps';
import { findInstance } from './readTools';
import { installedGuard } from '../guard/installed';
import { guardText, instanceLine, plain } from './resultText';
import type { AgentPorts, AgentTool } from './toolTypes';
import { ToolError } from './toolTypes';
import { decideIncreaseInput, destroyInput, instanceInput, startInput } from './toolInputs';
import * as l10n from '@vscode/l10n';

/** The quote id of a confirm (invokeTool quotes the calls without one). */
export function quoteIdOf(input: { quote_id?: string | undefined }): string {
  if (input.quote_id === undefined) throw new ToolError(l10n.t('A quote id is needed: call the tool without quote_id for a quote first. Nothing was sent.'));
  return input.quote_id;
}

function guardNote(onstart: string | null | undefined): string {
  return installedGuard(onstart) ? l10n.t('Idle {0}.', guardText(onstart)) : l10n.t('Idle guard: none (nothing stops it when idle).');
}

interface StartPlan {
  instanceId: number;
  perHour: number;
}

async function startCheck(ports: AgentPorts, instanceId: number): Promise<{ summary: string; plan: StartPlan }> {
  const inst = await findInstance(ports, instanceId);
  if (inst.state === 'running' || inst.state === 'loading' || inst.state === 'provisioning')
    throw new ToolError(l10n.t('Instance {0} is {1} already; nothing was sent.', inst.id, inst.state));
  const perHour = typeof inst.dph_total === 'number' ? inst.dph_total : NaN;
  const caps = ports.caps();
  const s = await spendingForCaps(ports, caps);
  checkCaps({ perHour, caps, ...(s ? { spending: s } : {}) });
  const summary = l10n.t(
    'Start instance {0}: it bills {1} while running (now {2}, its disk). {3} {4}',
    inst.id,
    rate(perHour),
    rate(currentRate(inst)),
    guardNote(inst.onstart),
    capsLine(caps, s),
  );
  return { summary, plan: { instanceId: inst.id, perHour } };
}

export const startInstance: AgentTool<typeof startInput> = {
  name: 'start_instance',
  title: 'Start a stopped instance',
  modelDescription:
    'Start a stopped instance again (it bills its hourly price from then on). Two steps: without quote_id it returns a quote (price, idle guard, budget left) and sends nothing; after the user agrees, call again with that quote_id. Refused when the per-hour cap or the budget would be broken.',
  input: startInput,
  effect: 'spends',
  async consent(ports, input) {
    const c = await startCheck(ports, input.instance_id);
    return { title: l10n.t('Start instance {0}?', input.instance_id), message: c.summary, quote: { kind: 'start', plan: c.plan } };
  },
  handler(ports, input) {
    return ports.quotes.confirm<StartPlan>(quoteIdOf(input), 'start', async (q) => {
      if (q.plan.instanceId !== input.instance_id)
        throw new ToolError(l10n.t('Quote {0} is for instance {1}, not {2}. Nothing was sent.', q.id, q.plan.instanceId, input.instance_id));
      const now = await startCheck(ports, q.plan.instanceId);
      if (now.plan.perHour > q.plan.perHour + 1e-9)
        throw new ToolError(
          l10n.t(
            'Instance {0} now bills {1}, more than the quoted {2}. Nothing was sent. Ask for a new quote.',
            q.plan.instanceId,
            rate(now.plan.perHour),
            rate(q.plan.perHour),
          ),
        );
      await (await ports.api()).setInstanceState(q.plan.instanceId, 'running');
      return {
        text: l10n.t('Start of instance {0} sent; it bills {1} while running. Check it with instance_details.', q.plan.instanceId, rate(now.plan.perHour)),
      };
    });
  },
};

export const stopInstance: AgentTool<typeof instanceInput> = {
  name: 'stop_instance',
  title: 'Stop an instance',
  modelDescription:
    'Stop a running instance: its GPU billing stops, its disk is kept (and billed) so it can be started again. Unsaved work in memory is lost. Use it when the user is done for now or to save money.',
  input: instanceInput,
  effect: 'stops',
  async handler(ports, input) {
    const inst = await findInstance(ports, input.instance_id);
    if (inst.state === 'stopped') return { text: l10n.t('Instance {0} is stopped already; nothing was sent.', inst.id) };
    await (await ports.api()).setInstanceState(inst.id, 'stopped');
    return {
      text: l10n.t(
        'Stop of instance {0} sent; GPU billing ends once it has stopped (its disk still bills {1}). Destroy it to stop all billing.',
        inst.id,
        rate(inst.storage_cost ?? 0),
      ),
    };
  },
};

/** What the user must echo to destroy: the label (as shown) or the id. */
function echoes(inst: { id: number; label?: string | null }, said: string): boolean {
  const s = said.trim().replace(/^#/, '');
  return s === String(inst.id) || (!!inst.label && s === inst.label.trim());
}

export const destroyInstance: AgentTool<typeof destroyInput> = {
  name: 'destroy_instance',
  title: 'Destroy an instance',
  modelDescription:
    "Destroy an instance: all billing stops and its disk and every file on it are deleted for good. Only when the user asked for it; `confirm` must repeat the instance's label or id exactly, as the user agreed. Use stop_instance to pause instead.",
  input: destroyInput,
  effect: 'destroys',
  async consent(ports, input) {
    const inst = await findInstance(ports, input.instance_id);
    return {
      title: l10n.t('Destroy instance {0}?', inst.id),
      message: l10n.t('Destroy {0}. Its disk and all data on it are deleted for good; billing stops.', instanceLine(inst, ports.clock.now())),
    };
  },
  async handler(ports, input) {
    const inst = await findInstance(ports, input.instance_id);
    if (!echoes(inst, input.confirm))
      throw new ToolError(
        l10n.t(
          'To destroy instance {0}, confirm must repeat its label{1} or its id ({2}), as the user agreed. Nothing was sent.',
          inst.id,
          inst.label ? ` ("${plain(inst.label, [], 64)}")` : '',
          inst.id,
        ),
      );
    await (await ports.api()).destroyInstance(inst.id);
    await removeInflight(ports.state, inst.id, true);
    return {
      text: l10n.t(
        'Destroy of instance {0} sent; billing stops and its data is deleted. list_instances shows it gone within a minute (a lagging list may show it a little longer).',
        inst.id,
      ),
    };
  },
};

interface PricePlan {
  increaseId: number;
  decision: 'accept' | 'reject';
  newPerHour: number;
}

async function pendingIncrease(ports: AgentPorts, increaseId: number): Promise<{ p: PendingPriceIncrease; headline: string; newPerHour: number }> {
  const api = await ports.api();
  const [pending, list] = await Promise.all([api.listPendingPriceIncreases(), api.listInstances()]);
  const p = pending.pending_price_increases.find((x) => x.pending_price_increase_id === increaseId);
  if (!p)
    throw new ToolError(
      l10n.t("Price increase {0} is not pending (decided already, expired, or never this account's). Nothing was sent. See price_increases.", increaseId),
    );
  const inst = list.instances.find((i) => i.id === p.contract_id);
  return { p, headline: increaseHeadline(p, `#${p.contract_id}`, inst), newPerHour: increaseFigures(p, inst).newPerHour };
}

async function priceCheck(ports: AgentPorts, increaseId: number, decision: 'accept' | 'reject'): Promise<{ summary: string; plan: PricePlan }> {
  const { headline, newPerHour } = await pendingIncrease(ports, increaseId);
  const plan = { increaseId, decision, newPerHour };
  if (decision === 'reject')
    return {
      plan,
      summary: l10n.t('Reject price increase {0}. {1} Rejecting keeps the old price; the host may end the contract at its end date.', increaseId, headline),
    };
  const caps = ports.caps();
  const s = await spendingForCaps(ports, caps);
  checkCaps({ perHour: newPerHour, caps, ...(s ? { spending: s } : {}) });
  return {
    plan,
    summary: l10n.t('Accept price increase {0}: the instance then bills {1}. {2} {3}', increaseId, rate(newPerHour), headline, capsLine(caps, s)),
  };
}

export const decidePriceIncrease: AgentTool<typeof decideIncreaseInput> = {
  name: 'decide_price_increase',
  title: 'Accept or reject a price increase',
  modelDescription:
    "Accept or reject a host's pending price increase (ids from price_increases). Two steps: without quote_id it returns the figures and sends nothing; after the user agrees, call again with that quote_id. Accepting is refused when the new price breaks the per-hour cap or the budget.",
  input: decideIncreaseInput,
  effect: 'changes-price',
  async consent(ports, input) {
    const c = await priceCheck(ports, input.increase_id, input.decision);
    return {
      title: input.decision === 'accept' ? l10n.t('Accept price increase {0}?', input.increase_id) : l10n.t('Reject price increase {0}?', input.increase_id),
      message: c.summary,
      quote: { kind: 'price', plan: c.plan },
    };
  },
  handler(ports, input) {
    return ports.quotes.confirm<PricePlan>(quoteIdOf(input), 'price', async (q) => {
      if (q.plan.increaseId !== input.increase_id || q.plan.decision !== input.decision)
        throw new ToolError(
          l10n.t(
            'Quote {0} is to {1} increase {2}, not to {3} {4}. Nothing was sent.',
            q.id,
            q.plan.decision,
            q.plan.increaseId,
            input.decision,
            input.increase_id,
          ),
        );
      const now = await priceCheck(ports, q.plan.increaseId, q.plan.decision);
      if (now.plan.newPerHour > q.plan.newPerHour + 1e-9)
        throw new ToolError(
          l10n.t(
            'The figures of increase {0} changed since the quote (now {1}). Nothing was sent. Ask for a new quote.',
            q.plan.increaseId,
            rate(now.plan.newPerHour),
          ),
        );
      const api = await ports.api();
      if (q.plan.decision === 'accept') await api.acceptPriceIncrease(q.plan.increaseId);
      else await api.rejectPriceIncrease(q.plan.increaseId);
      return {
        text:
          q.plan.decision === 'accept' ? l10n.t('Price increase {0} accepted.', q.plan.increaseId) : l10n.t('Price increase {0} rejected.', q.plan.increaseId),
      };
    });
  },
};
