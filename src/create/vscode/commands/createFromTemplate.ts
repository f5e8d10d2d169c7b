// gpuRental.createFromTemplate and gpuRental.rentOffer: the create flow behind a cancellable
// progress notification, with VS Code prompts (../createPrompts.ts). A lazily loaded bundle
// (src/app/commandTable.ts).
import * as vscode from 'vscode';
import type { Offer } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { stoppedCreationMessage } from '../../stoppedCreation';
import { STAGES, readInflight, realClock, runCreateFlow, type CreateFlowInput, type CreateFlowResult, type ProgressUpdate, type Stage } from '../../createFlow';
import type { Template } from '../../templateSchema';
import type { LoadedTemplate } from '../../templateValidation';
import { sshEntryWriterFor } from '../../../ssh/vscode/sshHost';
import { offerRefOf } from '../../../core/instanceRef';
import { loadTemplateUri, openTemplateFix, pickTemplate, requireTemplateUri, templatesRestricted } from '../templateFiles';
import type { GuardRequest } from '../../../guard/plan';
import { oneAtATime } from '../../../core/vscode/instanceTarget';
import { vscodePrompts, type PromptArgs } from '../createPrompts';
import { rentSetup } from '../rentSetup';
import { keepWatching } from '../inflightWatcher';
import { background } from '../../../core/background';
import { consentedCreateArgs } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';
import { tellDone } from '../../../core/vscode/statusMessage';
import { CommandFailure, SHOW_OUTPUT_LOG, failedWith, fixByCommand } from '../../../core/vscode/commandFailure';

export { vscodePrompts, keepWatching };

export interface CreateArgs extends PromptArgs {
  /** Workspace-relative path, URI string or vscode.Uri of the template. */
  template?: string | vscode.Uri;
  offerId?: number;
  /** false skips the price confirmation (scripts and tests) and never rents a second machine unasked. */
  confirm?: boolean;
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

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** gpuRental.createFromTemplate(args?): `CreateArgs`, or the template's Uri (editor title button). */
export function createFromTemplate(services: Services, arg?: CreateArgs | vscode.Uri): Promise<CreateFlowResult | undefined> {
  return create(services, arg instanceof vscode.Uri ? { template: arg } : (arg ?? {}));
}

/** The template the user meant, loaded and valid; undefined when the user cancelled (or Restricted Mode said why); throws when it is missing or invalid. */
async function loadChosenTemplate(
  services: Pick<Services, 'api' | 'connection' | 'log' | 'secrets'>,
  args: CreateArgs,
  preselected?: Offer | number,
): Promise<{ uri: vscode.Uri; rel: string; loaded: LoadedTemplate & { template: Template } } | undefined> {
  let uri: vscode.Uri | undefined;
  if (await templatesRestricted()) return undefined; // Restricted Mode: no template is read, the user is told why
  if (args.template !== undefined) {
    uri = await requireTemplateUri(args.template);
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
    throw new CommandFailure(
      vscode.l10n.t(
        'Template {0} has {1} problem{2} (first: {3}: {4}). Nothing was rented. Fix them (see the Problems panel) and try again.',
        rel,
        errors.length,
        errors.length === 1 ? '' : 's',
        errors[0]?.where ?? '',
        errors[0]?.message ?? '',
      ),
      [openTemplateFix(uri)],
    );
  }
  return { uri, rel, loaded: loaded as LoadedTemplate & { template: Template } };
}

async function create(services: Services, asked: CreateArgs, preselected?: Offer | number): Promise<CreateFlowResult | undefined> {
  // confirm: false, onNotFound, onCancel only with the user's consent to unattended calls.
  const args = consentedCreateArgs(consentOf(services), asked);
  const chosen = await loadChosenTemplate(services, args, preselected);
  if (!chosen) return undefined;
  if ((chosen.loaded.template.count ?? 1) > 1) {
    // A group of machines (src/groups/) picks its own cluster: it is its own command, run by id.
    if (preselected !== undefined || args.offerId !== undefined) {
      throw new CommandFailure(
        vscode.l10n.t(
          'Template {0} rents a group of {1} machines, which picks its own physical cluster: it cannot rent one offer. Use Create Instance from Template, or set "count": 1.',
          chosen.rel,
          String(chosen.loaded.template.count),
        ),
      );
    }
    return vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.createGroup', {
      template: chosen.uri,
      ...(args.confirm === false ? { confirm: false } : {}),
      ...(args.pollIntervalMs ? { pollIntervalMs: args.pollIntervalMs } : {}),
      ...(args.signal ? { signal: args.signal } : {}),
    });
  }
  // One rental at a time per offer (or per template without one): a second click says so and rents nothing.
  const offer = preselected ?? args.offerId;
  const offerId = typeof offer === 'object' ? offer.id : offer;
  const key = offerId !== undefined ? `offer:${offerId}` : `template:${chosen.rel}`;
  const name = offerId !== undefined ? `offer ${offerId}` : `template ${chosen.rel}`;
  return oneAtATime(services, key, 'Rent', name, undefined, () => rent(services, args, chosen, offer));
}

async function rent(
  services: Services,
  args: CreateArgs,
  chosen: { rel: string; loaded: LoadedTemplate & { template: Template } },
  offer: Offer | number | undefined,
): Promise<CreateFlowResult | undefined> {
  const { rel, loaded } = chosen;
  const template = loaded.template;
  const setup = await rentSetup(services, loaded);
  if (!setup) return undefined;
  const { api, guard, onstart } = setup;
  const { maxAttempts } = services.settings().templates;
  const input: Omit<CreateFlowInput, 'signal'> = {
    template,
    templatePath: rel,
    ...(onstart !== undefined ? { onstart } : {}),
    secrets: loaded.secrets,
    ...(guard ? { guard } : {}),
    ...(offer !== undefined ? { offer } : {}),
    ...(args.confirm === false ? { confirm: false } : {}),
    ...(args.pollIntervalMs ? { pollIntervalMs: args.pollIntervalMs } : {}),
    maxAttempts,
  };
  const result = await withProgress(services, args, template, guard, (ports, signal) => runCreateFlow({ api, ...ports }, { ...input, signal }));
  const failure = report(services, result, template, rel);
  return failure ? failedWith(result, failure) : result;
}

type FlowRunner = (ports: Omit<Parameters<typeof runCreateFlow>[0], 'api'>, signal: AbortSignal) => Promise<CreateFlowResult>;

/** Runs the flow behind a cancellable progress notification: stage n of 6, message, attempt, elapsed time. */
function withProgress(
  services: Pick<Services, 'connection' | 'globalState' | 'instances' | 'log' | 'onDidChangeConnection' | 'track'>,
  args: CreateArgs,
  template: Template,
  guard: GuardRequest | undefined,
  runFlow: FlowRunner,
): Thenable<CreateFlowResult> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: "{0}"', template.name), cancellable: true },
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
        progress.report({
          message: `(${step}/${STAGES.length}) ${STAGE_TEXT[last.stage]}: ${last.message}${attempt}${time}`,
          increment: Math.max(0, target - reported),
        });
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
        return await runFlow(
          {
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
          ac.signal,
        );
      } finally {
        clearInterval(ticker);
      }
    },
  );
}

/**
 * Tells the user how it ended, and keeps watching whatever is still in flight. One notice per
 * outcome: running (with Connect), a warning for what needs attention (an SSH entry problem, a
 * machine stopped unasked or kept after a failure, an unknown fate), a status bar line for what the
 * user chose (cancelled: nothing rented, destroyed or kept; stopped as asked); a failure is returned
 * for the command's reporter.
 */
function report(
  services: Pick<Services, 'api' | 'connection' | 'globalState' | 'guard' | 'instances' | 'log' | 'onDidChangeConnection' | 'track'>,
  result: CreateFlowResult,
  template: Template,
  rel: string,
): CommandFailure | undefined {
  // A rental the flow stopped waiting for (its fate unknown; the user may have rented another
  // instead) is watched from now on, whatever this click came to, and adopted if it appears.
  for (const r of readInflight(services.globalState))
    if (r.late) background(keepWatching(services, r.instanceId ?? r.label), services.log, 'watching a rental of unknown fate');
  const kept = 'keptId' in result ? result.keptId : undefined;
  if (kept !== undefined) background(keepWatching(services, kept), services.log, 'watching the kept instance');
  const CONNECT = vscode.l10n.t('Connect');
  const SHOW_LOG = vscode.l10n.t('Show Output Log');
  let attention: { text: string; button?: string } | undefined;
  switch (result.outcome) {
    case 'running': {
      const where = result.alias ? ` (ssh ${result.alias})` : '';
      services.log.info(`templates: instance ${result.instance.id} from ${rel} is running${where}`);
      // Its SSH entry exists now: the row shows what its idle guard reports in seconds, not in a minute.
      if (!result.sshError && result.alias) services.guard.readSoon(result.instance.id);
      // Running after minutes of work: one notification with Connect (a warning, which says it runs, when its SSH entry failed).
      if (result.sshError)
        attention = { text: vscode.l10n.t('Instance {0} from "{1}": {2}', result.instance.id, template.name, result.sshError), button: CONNECT };
      else
        background(
          vscode.window
            .showInformationMessage(vscode.l10n.t('Instance {0} from "{1}" is running{2}.', result.instance.id, template.name, where), CONNECT)
            .then((c) =>
              c ? background(vscode.commands.executeCommand('gpuRental.connect', result.instance.id), services.log, 'opening Connect') : undefined,
            ),
          services.log,
          'the running notice',
        );
      break;
    }
    case 'stopped': {
      const asked = template.instance.target_state ?? 'running';
      const text = stoppedCreationMessage(result.instance, template.name, asked);
      // Stopped as asked: a confirmation. Stopped without being asked: storage bills for a machine that is not running.
      if (asked === 'stopped') tellDone(text);
      else attention = { text };
      break;
    }
    case 'cancelled':
      // What the user chose (a kept machine after the modal that said it bills): a confirmation.
      tellDone(result.message);
      break;
    case 'unknown':
      attention = { text: result.message };
      break;
    case 'kept':
      attention = { text: result.message, button: SHOW_LOG };
      break;
    case 'failed': {
      // An instance that ended exited/unknown/offline: its log says why (requested before it was destroyed).
      const failedLog = result.logs?.[result.logs.length - 1];
      const showLogs = failedLog
        ? [fixByCommand('Show Instance Logs', 'gpuRental.showInstanceLogs', { id: failedLog.instanceId, resultUrl: failedLog.resultUrl })]
        : [];
      return new CommandFailure(result.message, [...showLogs, SHOW_OUTPUT_LOG()]);
    }
  }
  if (attention)
    background(
      vscode.window.showWarningMessage(attention.text, ...(attention.button ? [attention.button] : [])).then((c) => {
        if (c === CONNECT && result.outcome === 'running')
          background(vscode.commands.executeCommand('gpuRental.connect', result.instance.id), services.log, 'opening Connect');
        else if (c === SHOW_LOG) background(vscode.commands.executeCommand('gpuRental.showLog'), services.log, 'opening the log');
      }),
      services.log,
      'the rental notice',
    );
  return undefined;
}

/** gpuRental.rentOffer(offer?, args?): an offer row, an Offer or an offer id; without one, asks for the id. */
export async function rentOffer(services: Services, arg?: unknown, extra: CreateArgs = {}): Promise<CreateFlowResult | undefined> {
  let offer = offerRefOf<Offer>(arg);
  if (offer === undefined) {
    const v = await vscode.window.showInputBox({
      title: vscode.l10n.t('Rent offer'),
      prompt: vscode.l10n.t('Offer id (from the Offers view or a search)'),
      placeHolder: vscode.l10n.t('e.g. 12345678'),
      validateInput: (s) => (offerRefOf(s) !== undefined ? undefined : 'Enter the numeric offer id.'),
    });
    if (!v) return undefined;
    offer = offerRefOf<Offer>(v);
    if (offer === undefined) return undefined;
  }
  return create(services, extra, offer);
}
