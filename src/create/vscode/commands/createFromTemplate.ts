// gpuRental.createFromTemplate and gpuRental.rentOffer: the create flow behind a cancellable
// progress notification, with VS Code prompts. A lazily loaded bundle (src/app/commandTable.ts).
import * as vscode from 'vscode';
import type { Offer } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import type { Template } from '../../templateSchema';
import { describeOffer } from '../../ranking';
import { offerPickDetail } from '../../../instances/instanceDetails';
import { formatRate } from '../../../costs/costs';
import { stoppedCreationMessage } from '../../../instances/instanceViewModel';
import { STAGES, readInflight, realClock, resumeInflight, runCreateFlow, type CreateFlowResult, type FlowPrompts, type ProgressUpdate, type Stage } from '../../createFlow';
import { sshEntryWriterFor } from '../../../ssh/vscode/sshHost';
import { checkSshKey } from '../../../ssh/vscode/commands/sshKeyCommands';
import { describeError } from '../../../core/describeError';
import { offerRefOf } from '../../../instances/instanceRef';
import { loadTemplateUri, pickTemplate, resolveTemplateUri } from '../templateFiles';
import { baseOnstart, guardRequestFor, guardSummary, type GuardRequest } from '../../../guard/plan';

export interface CreateArgs {
  /** Workspace-relative path, URI string or vscode.Uri of the template. */
  template?: string | vscode.Uri;
  offerId?: number;
  /** false skips the price confirmation (scripts and tests). */
  confirm?: boolean;
  /** Scripts and tests: the answer to "keep or destroy" on cancel, instead of asking. */
  onCancel?: 'keep' | 'destroy';
  /** Tests: poll interval override in ms (the default is the spec's 10 s). */
  pollIntervalMs?: number;
  /** Tests: a signal that cancels like the notification's Cancel button. */
  signal?: AbortSignal;
}

const STAGE_TEXT: Record<Stage, string> = {
  searching: 'Searching offers',
  confirming: 'Waiting for confirmation',
  renting: 'Renting',
  provisioning: 'Provisioning',
  loading: 'Loading image',
  running: 'Running',
  'writing-ssh': 'Writing SSH entry',
  done: 'Done',
};

const DESTROY = 'Destroy';
const KEEP = 'Keep (decide later)';

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function money(n: number): string {
  return formatRate(n, n < 1 ? 3 : 2);
}

export function vscodePrompts(args: CreateArgs, guard?: GuardRequest): FlowPrompts {
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
        { title: `"${t.name}": ${offers.length} matching offers (${best})`, matchOnDetail: true, ignoreFocusOut: true },
      );
      return pick?.offer;
    },
    async confirmRent(offer: Offer, t: Template, bidPrice: number | undefined) {
      let bid = bidPrice;
      for (;;) {
        const what = `Rent ${offer.num_gpus}× ${offer.gpu_name} for "${t.name}"`;
        const question =
          bid !== undefined
            ? `${what} as an interruptible instance, bidding ${money(bid)}? The offer's listed price is ${money(offer.dph_total)}.`
            : `${what} on demand at ${money(offer.dph_total)}?`;
        const bidNote = bid !== undefined ? '\nInterruptible: you pay your bid, and the instance is stopped when someone outbids you (its disk stays and is billed).' : '';
        const answer = await vscode.window.showWarningMessage(
          question,
          { modal: true, detail: `${describeOffer(offer)}\nBilling starts now and continues until you destroy the instance (disk is billed while stopped).${bidNote}\n${guardSummary(guard, offer.dph_total)}` },
          'Rent',
          ...(bid !== undefined ? ['Change Bid…'] : []),
        );
        if (answer === 'Rent') return bid !== undefined && bid !== bidPrice ? { bidPrice: bid } : true;
        if (answer !== 'Change Bid…' || bid === undefined) return false;
        const min = typeof offer.min_bid === 'number' ? offer.min_bid : 0;
        const typed = await vscode.window.showInputBox({
          title: `Your bid for ${offer.num_gpus}× ${offer.gpu_name}`,
          prompt: `Dollars per hour${min > 0 ? `, at least the minimum bid ${money(min)}` : ''}. A higher bid is outbid less often.`,
          value: String(bid),
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
    },
    async confirmOutsideTemplate(offer: Offer, t: Template, reasons: readonly string[]) {
      const answer = await vscode.window.showWarningMessage(
        `Offer ${offer.id} (${offer.num_gpus}× ${offer.gpu_name}, ${money(offer.dph_total)}) does not fit template "${t.name}". Rent it anyway?`,
        { modal: true, detail: `It fails the template's offer filters:\n• ${reasons.join('\n• ')}\n\nRent it only if you meant to; otherwise pick an offer that fits or change the template.` },
        'Rent Anyway',
      );
      return answer === 'Rent Anyway';
    },
    async keepOrDestroy(id: number, reason: 'cancelled' | 'timeout') {
      if (args.onCancel) return args.onCancel;
      const why = reason === 'timeout' ? `Instance ${id} has not come up after a long wait.` : `Creation cancelled, but instance ${id} is already rented and billing.`;
      // Two answers, no ambiguous "Cancel": Keep is the close affordance, so Escape keeps it too.
      const answer = await vscode.window.showWarningMessage<vscode.MessageItem>(
        `${why} Destroy it, or keep it and decide later?`,
        { modal: true, detail: 'Destroy: it is removed and billing stops. Keep (decide later): it stays in the Instances view, keeps billing, and its SSH entry is written when it runs.' },
        { title: DESTROY },
        { title: KEEP, isCloseAffordance: true },
      );
      // Dismissing keeps it: it stays tracked, and nothing is destroyed without a clear yes.
      return answer?.title === DESTROY ? 'destroy' : 'keep';
    },
  };
}

/** gpuRental.createFromTemplate(args?): `CreateArgs`, or the template's Uri (editor title button). */
export function createFromTemplate(services: Services, arg?: CreateArgs | vscode.Uri): Promise<CreateFlowResult | undefined> {
  return create(services, arg instanceof vscode.Uri ? { template: arg } : (arg ?? {}));
}

async function create(services: Services, args: CreateArgs, preselected?: Offer | number): Promise<CreateFlowResult | undefined> {
  let uri: vscode.Uri | undefined;
  if (args.template !== undefined) {
    uri = await resolveTemplateUri(args.template);
    if (!uri) {
      void vscode.window.showErrorMessage(`Template "${String(args.template)}" was not found in the workspace. Check the path (relative to the workspace folder, e.g. .gpu/my.json) and try again.`);
      return undefined;
    }
  } else {
    uri = await (preselected !== undefined
      ? pickTemplate('Rent this offer with which template?', { offer: preselected, load: (u) => loadTemplateUri(services, u) })
      : pickTemplate('Create an instance from which template?'));
    if (!uri) return undefined;
  }
  const rel = vscode.workspace.asRelativePath(uri, false);
  const loaded = await loadTemplateUri(services, uri);
  if (!loaded.template) {
    const errors = loaded.problems.filter((p) => p.severity === 'error');
    services.log.warn(`templates: ${rel} has ${errors.length} problem(s): ${errors.map((p) => `${p.where}: ${p.message}`).join(' | ')}`);
    const open = await vscode.window.showErrorMessage(
      `Template ${rel} has ${errors.length} problem${errors.length === 1 ? '' : 's'} (first: ${errors[0]?.where}: ${errors[0]?.message}). Nothing was rented. Fix them (see the Problems panel) and try again.`,
      'Open Template',
    );
    if (open) await vscode.window.showTextDocument(uri);
    return undefined;
  }
  const template = loaded.template;
  let api;
  try {
    api = await services.api();
  } catch (e) {
    void vscode.window.showErrorMessage(describeError(e));
    return undefined;
  }
  // The first rent of a session checks that SSH will let the user in (one question when not).
  const keys = await checkSshKey(services, { once: true, ...(template.ssh?.identityFile ? { identityFile: template.ssh.identityFile } : {}) });
  if (!keys.proceed) return undefined;
  const offer = preselected ?? args.offerId;
  const { maxAttempts } = services.settings().templates;
  // The idle guard goes in through onstart and calls the same service URL this window uses.
  const guard = guardRequestFor(template.guard, template.instance.runtype, services.settings().guard, services.connection().baseUrl);
  // With a server template, the guard is added to its own onstart (read first), never replaces it.
  let onstart: string | undefined;
  try {
    onstart = await baseOnstart(loaded.onstart ?? template.instance.onstart, template.instance.template_hash_id, guard, async (h) => (await api.searchTemplates({ filters: { hash_id: { eq: h } } }))[0]);
  } catch (e) {
    void vscode.window.showErrorMessage(`Nothing was rented. ${describeError(e)}`);
    return undefined;
  }

  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `GPU Rental: "${template.name}"`, cancellable: true },
    async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      if (args.signal?.aborted) ac.abort();
      else args.signal?.addEventListener('abort', () => ac.abort(), { once: true });
      let last: ProgressUpdate | undefined;
      let reported = 0;
      const show = () => {
        if (!last) return;
        const n = Math.max(0, STAGES.indexOf(last.stage));
        const step = last.stage === 'done' ? STAGES.length : n + 1;
        const target = Math.round((step / STAGES.length) * 100);
        const attempt = last.attempt > 1 ? ` · attempt ${last.attempt}/${last.maxAttempts}` : '';
        // No clock while the confirmation waits for the user: that time is not the creation's.
        const time = last.stage === 'confirming' || last.stage === 'searching' ? '' : ` · ${elapsed(last.elapsedMs)}`;
        progress.report({ message: `(${step}/${STAGES.length}) ${STAGE_TEXT[last.stage]}: ${last.message}${attempt}${time}`, increment: Math.max(0, target - reported) });
        reported = Math.max(reported, target);
      };
      // The flow's elapsed time starts at the click on Rent; between its updates it advances here.
      let clockFrom = Date.now();
      const ticker = setInterval(() => {
        if (last && last.stage !== 'confirming') {
          last = { ...last, elapsedMs: Date.now() - clockFrom };
          show();
        }
      }, 1000);
      try {
        return await runCreateFlow(
          {
            api,
            log: services.log,
            prompts: vscodePrompts(args, guard),
            progress: (u) => {
              last = u;
              clockFrom = Date.now() - u.elapsedMs;
              show();
            },
            clock: realClock,
            ssh: sshEntryWriterFor(services),
            instances: services.instances,
            state: services.globalState,
          },
          {
            template,
            templatePath: rel,
            ...(onstart !== undefined ? { onstart } : {}),
            secrets: loaded.secrets,
            ...(guard ? { guard } : {}),
            ...(offer !== undefined ? { offer } : {}),
            ...(args.confirm === false ? { confirm: false } : {}),
            ...(args.pollIntervalMs ? { pollIntervalMs: args.pollIntervalMs } : {}),
            maxAttempts,
            signal: ac.signal,
          },
        );
      } finally {
        clearInterval(ticker);
      }
    },
  );

  switch (result.outcome) {
    case 'running': {
      const where = result.alias ? ` (ssh ${result.alias})` : '';
      services.log.info(`templates: instance ${result.instance.id} from ${rel} is running${where}`);
      if (result.sshError) void vscode.window.showWarningMessage(result.sshError);
      void vscode.window.showInformationMessage(`Instance ${result.instance.id} from "${template.name}" is running${where}.`, 'Connect').then((c) => {
        if (c === 'Connect') void vscode.commands.executeCommand('gpuRental.connect', result.instance.id);
      });
      break;
    }
    case 'stopped': {
      const asked = template.instance.target_state ?? 'running';
      const text = stoppedCreationMessage(result.instance, template.name, asked);
      // Stopped without being asked: storage bills for a machine that is not running. Say so louder.
      if (asked === 'stopped') void vscode.window.showInformationMessage(text);
      else void vscode.window.showWarningMessage(text);
      break;
    }
    case 'cancelled':
      if (result.keptId !== undefined) void keepWatching(services, result.keptId);
      void vscode.window.showInformationMessage(result.message);
      break;
    case 'kept':
      void keepWatching(services, result.keptId);
      void vscode.window.showWarningMessage(result.message, 'Show Log').then((c) => {
        if (c) void vscode.commands.executeCommand('gpuRental.showLog');
      });
      break;
    case 'failed': {
      if (result.keptId !== undefined) void keepWatching(services, result.keptId);
      // An instance that ended exited/unknown/offline: its log says why (requested before it was destroyed).
      const failedLog = result.logs?.[result.logs.length - 1];
      const actions = failedLog ? ['Show Logs', 'Show Log'] : ['Show Log'];
      void vscode.window.showErrorMessage(result.message, ...actions).then((c) => {
        if (c === 'Show Logs' && failedLog) void vscode.commands.executeCommand('gpuRental.showInstanceLogs', { id: failedLog.instanceId, resultUrl: failedLog.resultUrl });
        else if (c) void vscode.commands.executeCommand('gpuRental.showLog');
      });
      break;
    }
  }
  return result;
}

/** A kept instance is polled in the background until it runs, then its SSH entry is written. */
const watching = new Set<number>();

export async function keepWatching(services: Services, id?: number): Promise<void> {
  // One poller per in-flight instance, however often this is called.
  const ids = readInflight(services.globalState)
    .map((r) => r.instanceId)
    .filter((x) => (id === undefined || x === id) && !watching.has(x));
  if (!ids.length) return;
  ids.forEach((x) => watching.add(x));
  try {
    const api = await services.api();
    const ac = new AbortController();
    services.track({ dispose: () => ac.abort() });
    await resumeInflight(
      { api, log: services.log, clock: realClock, ssh: sshEntryWriterFor(services), state: services.globalState, instances: services.instances },
      {
        only: ids,
        signal: ac.signal,
        onFailed: (_r, message) =>
          void vscode.window.showWarningMessage(message, 'Destroy').then((c) => {
            if (c) void vscode.commands.executeCommand('gpuRental.destroyInstance', _r.instanceId);
          }),
      },
    );
  } catch (e) {
    services.log.warn(`templates: resuming in-flight creations failed: ${e instanceof Error ? e.message : 'unknown error'}`);
  } finally {
    ids.forEach((x) => watching.delete(x));
  }
}

/** gpuRental.rentOffer(offer?, args?): an offer row, an Offer or an offer id; without one, asks for the id. */
export async function rentOffer(services: Services, arg?: unknown, extra: CreateArgs = {}): Promise<CreateFlowResult | undefined> {
  let offer = offerRefOf<Offer>(arg);
  if (offer === undefined) {
    const v = await vscode.window.showInputBox({ title: 'Rent offer', prompt: 'Offer id (from the Offers view or a search)', validateInput: (s) => (offerRefOf(s) !== undefined ? undefined : 'Enter the numeric offer id.') });
    if (!v) return undefined;
    offer = offerRefOf<Offer>(v);
    if (offer === undefined) return undefined;
  }
  return create(services, extra, offer);
}
