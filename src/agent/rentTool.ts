// The rent tool: a quote first (the offer, its $/h with disk, the idle guard that will apply, the
// budget left), then, with the quote's id, the SAME create flow as a click (src/create/createFlow.ts):
// recorded in flight before the request goes out, one machine per request under every fault,
// late adoption, the guard in onstart, the SSH entry written. The flow runs unattended
// (confirm: false: it never rents a second machine or destroys one unasked), and the template's
// price cap is lowered to the quoted price, so no retry can rent above what the user agreed to.
import * as z from 'zod/mini';
import type { Offer } from '../api/types';
import { buildOfferQuery } from '../create/requestBuilder';
import { offerSatisfies } from '../create/offerFit';
import { rankOffers } from '../create/ranking';
import { TemplateSchema, type Template } from '../create/templateSchema';
import { realClock, runCreateFlow, type CreateFlowResult, type FlowPrompts, type Stage } from '../create/createFlow';
import { GuardSetupError, baseOnstart, guardRequestFor, guardSummary, type GuardRequest } from '../guard/plan';
import { checkCaps, capsLine, rate, spendingForCaps } from './caps';
import { flowText, offerLine, plain } from './resultText';
import { quoteIdOf } from './actionTools';
import type { AgentPorts, AgentTool, RentTemplate, ToolResult } from './toolTypes';
import { ToolError } from './toolTypes';
import { rentInput } from './toolInputs';
import { background } from '../core/background';
import { checkAccountKey } from './sshKeyGate';

type RentInput = z.infer<typeof rentInput>;

export interface RentPlan {
  offerId: number;
  perHour: number;
  rt: RentTemplate;
  onstart?: string;
  guard?: GuardRequest;
}

/** A container image name as registries spell it: nothing a shell or a JSON body would read as syntax. */
const IMAGE = /^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,199}$/;

/** The template path of a rent from an image alone (the in-flight record's). */
const IMAGE_ONLY = '(image)';

/** A template from an image alone: the default idle guard, SSH, on-demand, the given disk. */
export function imageTemplate(image: string, diskGb = 16): RentTemplate {
  if (!IMAGE.test(image))
    throw new ToolError('The image name is not valid (letters, digits and . _ / : @ + - only, e.g. "pytorch/pytorch:latest"). Nothing was rented.');
  const t = z.safeParse(TemplateSchema, { name: 'agent', instance: { image, disk: diskGb, runtype: 'ssh', label: 'agent' } });
  if (!t.success) throw new ToolError('The image or disk is not valid. Nothing was rented.');
  return { template: t.data, templatePath: IMAGE_ONLY, secrets: [] };
}

async function templateOf(ports: AgentPorts, input: RentInput): Promise<RentTemplate> {
  if (input.template !== undefined && input.image !== undefined) throw new ToolError('Give either a template or an image, not both. Nothing was rented.');
  if (input.template !== undefined) return ports.loadTemplate(input.template);
  if (input.image !== undefined) return imageTemplate(input.image, input.disk_gb);
  throw new ToolError(
    'Say what to run: a workspace template (template: ".gpu/x.json") or a container image (image: "pytorch/pytorch:latest"). Nothing was rented.',
  );
}

/** The offer to quote: the one asked for (read afresh, with the template's disk), else the cheapest fit. */
async function offerFor(ports: AgentPorts, t: Template, offerId: number | undefined): Promise<Offer> {
  const api = await ports.api();
  const query = buildOfferQuery(t);
  if (offerId !== undefined) {
    const found = (
      await api.searchOffers({
        offerId,
        type: 'on-demand',
        allocatedStorage: query.allocatedStorage ?? 8,
        ...(t.offer?.verified === false ? { verified: false } : {}),
      })
    ).find((o) => o.id === offerId);
    if (!found)
      throw new ToolError(`Offer ${offerId} is not available (rented by someone else, withdrawn, or never listed). Nothing was rented. Search again.`);
    const reasons = offerSatisfies(t, found);
    if (reasons.length)
      throw new ToolError(`Offer ${offerId} does not fit the template: ${plain(reasons.join('; '), [], 300)}. Nothing was rented. Pick an offer that fits.`);
    return found;
  }
  const [first] = rankOffers(await api.searchOffers(query), { rank: t.offer?.rank ?? 'cheapest', maxDphTotal: t.offer?.maxDphTotal });
  if (!first)
    throw new ToolError(
      `No offer fits template "${plain(t.name, [], 80)}" right now. Nothing was rented. Loosen its offer requirements or search with search_offers.`,
    );
  return first;
}

/** Everything the quote says and the confirm rents: read, checked against the caps; nothing is sent. */
export async function prepareRent(ports: AgentPorts, input: RentInput): Promise<{ plan: RentPlan; summary: string }> {
  const rt = await templateOf(ports, input);
  const t = rt.template;
  if (t.offer?.type === 'bid')
    throw new ToolError('Agents rent on-demand only; this template bids for an interruptible machine. Rent it from the editor instead. Nothing was rented.');
  await checkAccountKey(ports, t.ssh?.identityFile);
  const guard = guardRequestFor(t.guard, t.instance.runtype, ports.guardDefaults(), ports.apiUrl());
  let onstart: string | undefined;
  try {
    const api = await ports.api();
    onstart = await baseOnstart(
      rt.onstart ?? t.instance.onstart,
      t.instance.template_hash_id,
      guard,
      async (h) => (await api.searchTemplates({ filters: { hash_id: { eq: h } } }))[0],
    );
  } catch (e) {
    if (e instanceof GuardSetupError) throw new ToolError(`Nothing was rented. ${plain(e.message, rt.secrets, 300)}`);
    throw e;
  }
  const offer = await offerFor(ports, t, input.offer_id);
  const caps = ports.caps();
  const spending = await spendingForCaps(ports, caps);
  checkCaps({
    perHour: offer.dph_total,
    ...(t.offer?.maxDphTotal !== undefined ? { templateCap: t.offer.maxDphTotal } : {}),
    caps,
    ...(spending ? { spending } : {}),
  });
  const guardLine = guardSummary(guard, offer.dph_total, onstart);
  const what = plain(t.instance.image ?? t.instance.template_hash_id ?? '', [], 100);
  const from = rt.templatePath === IMAGE_ONLY ? 'no template' : `template ${plain(rt.templatePath, [], 100)}`;
  const summary = `Rent ${offerLine(offer, t.instance.disk ?? 8)}. ${what ? `Image ${what}, ` : ''}${from}. It bills ${rate(offer.dph_total)} until stopped or destroyed. ${guardLine} ${capsLine(caps, spending)}`;
  return { plan: { offerId: offer.id, perHour: offer.dph_total, rt, ...(onstart !== undefined ? { onstart } : {}), ...(guard ? { guard } : {}) }, summary };
}

/** The flow's questions, answered as an unattended script would: keep, never rent again unasked. */
const unattended: FlowPrompts = {
  pickOffer: async () => undefined,
  confirmRent: async () => false,
  keepOrDestroy: async () => 'keep',
};

/** The quoted rent, once: the caps again (the budget may have moved), then the create flow. */
export async function confirmRent(ports: AgentPorts, plan: RentPlan): Promise<ToolResult> {
  const caps = ports.caps();
  const spending = await spendingForCaps(ports, caps);
  checkCaps({ perHour: plan.perHour, caps, ...(spending ? { spending } : {}) });
  const t = plan.rt.template;
  // Never above the quoted price, whichever match the flow ends up renting.
  const cap = Math.min(plan.perHour, t.offer?.maxDphTotal ?? Infinity, caps.maxDphTotal ?? Infinity);
  const template: Template = { ...t, offer: { ...(t.offer ?? {}), maxDphTotal: cap } };
  const api = await ports.api();
  if (ports.signal?.aborted) throw new ToolError('The rent was cancelled before anything was sent. Nothing was rented.');
  // The instance the flow rented, as soon as it is known (the flow puts it in the store at once).
  let id: number | undefined;
  const instances = {
    upsert: (i: Parameters<NonNullable<AgentPorts['instances']>['upsert']>[0]) => {
      id ??= i.id;
      ports.instances?.upsert(i);
    },
    watch: (id: number) => ports.instances?.watch(id),
    remove: (id: number) => ports.instances?.remove(id),
  };
  const cancel = cancellation(ports.signal);
  const flow = runCreateFlow(
    {
      api,
      log: ports.log,
      prompts: unattended,
      progress: (p) => cancel.stage(p.stage),
      clock: ports.clock ?? realClock,
      ssh: ports.ssh,
      state: ports.state,
      instances,
      ...(ports.random ? { random: ports.random } : {}),
    },
    {
      template,
      templatePath: plan.rt.templatePath,
      ...(plan.onstart !== undefined ? { onstart: plan.onstart } : {}),
      ...(plan.guard ? { guard: plan.guard } : {}),
      secrets: plan.rt.secrets,
      offer: plan.offerId,
      confirm: false,
      maxAttempts: ports.maxAttempts ?? 3,
      ...(ports.pollIntervalMs ? { pollIntervalMs: ports.pollIntervalMs } : {}),
      ...(ports.maxWaitMs ? { maxWaitMs: ports.maxWaitMs } : {}),
      ...(cancel.signal ? { signal: cancel.signal } : {}),
    },
  );
  const settled = await answerOrStop(flow, ports.answerWithinMs, cancel.stopped);
  cancel.dispose();
  if (typeof settled !== 'string') return rentResult(settled.r, plan.rt.secrets);
  // A client gives up on a call after a while (often 60 s), a machine can take minutes to boot,
  // and a chat request can be cancelled: the answer stops waiting and says where the rent stands.
  // The flow goes on (watched, SSH entry written when it runs, in-flight record kept).
  background(
    flow.then((r) => ports.log.info(`agent: the rent${id !== undefined ? ` of instance ${id}` : ''} ended: ${r.outcome}`)),
    ports.log,
    'the rent that goes on',
  );
  return goesOnText(settled, id, plan.perHour);
}

/**
 * How the call's cancellation reaches a rent. While no create request has gone out, it aborts the
 * flow's own signal (the flow rents nothing and ends 'cancelled', which is the answer). From the
 * flow's first 'renting' stage on it never touches the flow (a cancelled wait must not end the
 * tracking of a machine that may exist): it only ends the answer's wait.
 */
function cancellation(call: AbortSignal | undefined): {
  signal?: AbortSignal;
  stage(stage: Stage): void;
  /** Resolves when the call is cancelled after a request may have been sent. */
  stopped?: Promise<'cancelled'>;
  dispose(): void;
} {
  if (!call) return { stage: () => undefined, dispose: () => undefined };
  const own = new AbortController();
  let sending = false;
  let stop: (why: 'cancelled') => void = () => undefined;
  const stopped = new Promise<'cancelled'>((resolve) => (stop = resolve));
  const onAbort = () => (sending ? stop('cancelled') : own.abort());
  call.addEventListener('abort', onAbort, { once: true });
  return {
    signal: own.signal,
    stage: (stage) => {
      if (stage === 'searching' || stage === 'confirming' || sending) return;
      sending = true;
      if (own.signal.aborted) stop('cancelled');
    },
    stopped,
    dispose: () => call.removeEventListener('abort', onAbort),
  };
}

/** The flow's result, or why the answer stopped waiting for it: the client's time ran out, or the call was cancelled. */
async function answerOrStop(
  flow: Promise<CreateFlowResult>,
  withinMs: number | undefined,
  cancelled: Promise<'cancelled'> | undefined,
): Promise<{ r: CreateFlowResult } | 'later' | 'cancelled'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = withinMs === undefined ? [] : [new Promise<'later'>((resolve) => (timer = setTimeout(() => resolve('later'), withinMs)))];
  try {
    return await Promise.race([flow.then((r) => ({ r })), ...later, ...(cancelled ? [cancelled] : [])]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where a rent stands when its answer stopped waiting (the flow goes on). */
function goesOnText(why: 'later' | 'cancelled', id: number | undefined, perHour: number): ToolResult {
  const watch = 'It shows in list_instances and the Instances view, and its SSH entry is written when it runs.';
  if (why === 'cancelled')
    return {
      text:
        id !== undefined
          ? `The wait was cancelled, not the rent: instance ${id} is rented at ${rate(perHour)} or less and is still being created (it bills from now). It stays tracked as after a click. ${watch} Do not rent again; destroy it with destroy_instance if it is not wanted.`
          : `The wait was cancelled, not the rent: the rent request was sent and the machine is still being created (or checked, if the service's answer was unclear). It stays tracked as after a click. ${watch} Do not rent again: check list_instances first.`,
    };
  if (id !== undefined)
    return {
      text: `Rented instance ${id} at ${rate(perHour)} or less; it is provisioning and bills from now. It is watched until it runs, and its SSH entry is written then: check it with instance_details or list_instances.`,
    };
  return {
    text: `The rent was sent, and the service's answer did not say whether a machine was created; it is being checked through the instance list and watched. Do not rent again: list_instances shows it as a rental not in the list yet, and then as an instance if it was created.`,
  };
}

/** The flow's outcome as a few lines: what was rented (id, state, price, SSH alias), or why nothing was. */
export function rentResult(r: CreateFlowResult, secrets: readonly string[]): ToolResult {
  const say = (s: string) => flowText(s, secrets);
  switch (r.outcome) {
    case 'running':
      return {
        text: `Rented instance ${r.instance.id}: running, ${rate(r.instance.dph_total ?? 0)}${r.alias ? `, ssh ${r.alias}` : ''}.${r.sshError ? ` ${say(r.sshError)}` : ''} It bills until stopped or destroyed.`,
      };
    case 'stopped':
      return { text: `Rented instance ${r.instance.id}: stopped (its disk bills). Start it with start_instance.` };
    case 'kept':
      return { text: `Instance ${r.keptId} is rented and billing. ${say(r.message)}`, isError: true };
    case 'unknown':
      return { text: `${say(r.message)}${r.instanceId !== undefined ? ` Instance id: ${r.instanceId}.` : ''}`, isError: true };
    case 'cancelled':
      return { text: say(r.message), isError: r.keptId !== undefined };
    case 'failed':
      return {
        text: `${say(r.message)}${r.keptId !== undefined ? ` Instance ${r.keptId} is kept (and bills): check it with instance_details.` : ''}`,
        isError: true,
      };
  }
}

export const rent: AgentTool<typeof rentInput> = {
  name: 'rent',
  title: 'Rent a GPU machine',
  modelDescription:
    "Rent a GPU machine (it bills by the hour until stopped or destroyed), from an offer id (search_offers) with a workspace template or a container image, or from a template alone (its cheapest fitting offer). Two steps: without quote_id it returns a quote (offer, $/h with disk, the idle guard that will stop it, the budget left) and rents nothing; after the user agrees, call again with the same arguments and that quote_id: it rents exactly one machine and waits until it runs (SSH alias in the answer). Refused when the template's price cap, the per-hour cap or the budget would be broken, or when the account holds none of this machine's SSH keys.",
  input: rentInput,
  effect: 'spends',
  async consent(ports, input) {
    const { plan, summary } = await prepareRent(ports, input);
    return { title: 'Rent a GPU machine?', message: summary, quote: { kind: 'rent', plan } };
  },
  handler(ports, input) {
    return ports.quotes.confirm<RentPlan>(quoteIdOf(input), 'rent', (q) => {
      if (input.offer_id !== undefined && input.offer_id !== q.plan.offerId)
        throw new ToolError(`Quote ${q.id} is for offer ${q.plan.offerId}, not ${input.offer_id}. Nothing was rented.`);
      return confirmRent(ports, q.plan);
    });
  },
};
