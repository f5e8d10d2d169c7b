// The language-model tools as VS Code runs them: one adapter for every entry of the catalogue
// (../toolCatalogue.ts), no code per tool. A lazily loaded bundle (agentEntry.ts registers the
// forwarders at activation).
//
// prepareInvocation: read-only tools (and stop) run without a question; a tool that spends,
// changes a price or destroys gets VS Code's confirmation with the core's consent text (price per
// hour with disk, the idle guard, the budget left), escaped as Markdown because host and template
// text is in it. A cap the call would break is a thrown error there: nothing is asked, nothing sent.
// invoke: the same call, with the quote the confirmation showed, so exactly what the user agreed
// to runs, once. Rents go through the same create flow as a click, with this window's records:
// the in-flight records in globalState (adopted later by the same watcher), the SSH entries, the
// instance list, the guard settings and the monthly budget setting.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import {
  QuoteStore,
  ToolError,
  describeConsent,
  invokeTool as runTool,
  needsConsent,
  toolNamed,
  type AgentCaps,
  type AgentPorts,
  type RentTemplate,
} from '../toolCatalogue';
import { readInflight, realClock } from '../../create/createFlow';
import { createWriter, sshEntryWriterFor, sshHome } from '../../ssh/vscode/sshHost';
import { loadTemplateUri, resolveTemplateUri, templatesRestricted } from '../../create/vscode/templateFiles';
import { background } from '../../core/background';
import { md } from '../../core/textFormat';
import { readGuardSettings } from '../../guard/vscode/guardSettings';
import { coreToolName } from './toolManifest';
import { textResult, type PreparedToolInvocation, type ToolResult } from './lmApi';

/** The quote each confirmation showed, by tool and input, until its invoke takes it. */
const confirmed = new Map<string, string>();

/** The call's identity: the tool and its input without a quote id (a model cannot pick the quote). */
function callKey(tool: string, input: unknown): string {
  const rest =
    typeof input === 'object' && input !== null
      ? Object.fromEntries(
          Object.entries(input)
            .filter(([k]) => k !== 'quote_id')
            .sort(([a], [b]) => a.localeCompare(b)),
        )
      : input;
  return `${tool} ${JSON.stringify(rest ?? {})}`;
}

function withoutQuote(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const { quote_id: _ignored, ...rest } = input as Record<string, unknown>;
  return rest;
}

/** A workspace template named by a relative path inside a workspace folder: never a file elsewhere. */
async function workspaceTemplate(services: Services, ref: string): Promise<RentTemplate> {
  const path = ref.trim();
  if (!/^[\w.\- /\\]+\.jsonc?$/.test(path) || /^[/\\]/.test(path) || path.split(/[/\\]/).includes('..'))
    throw new ToolError('The template must be a path inside the workspace folder ending in .json, e.g. ".gpu/train.json". Nothing was rented.');
  if (await templatesRestricted())
    throw new ToolError('Templates are not read in Restricted Mode: the user must trust this folder first (Manage Workspace Trust). Nothing was rented.');
  const uri = await resolveTemplateUri(path);
  if (!uri) throw new ToolError(`There is no template "${path}" in the workspace. Nothing was rented.`);
  const loaded = await loadTemplateUri(services, uri);
  if (!loaded.template) {
    const errors = loaded.problems.filter((p) => p.severity === 'error');
    throw new ToolError(
      `Template ${path} has ${errors.length} problem(s) (see the Problems panel; first at ${errors[0]?.where ?? 'the top'}). Nothing was rented.`,
    );
  }
  return {
    template: loaded.template,
    templatePath: vscode.workspace.asRelativePath(uri, false),
    secrets: loaded.secrets,
    ...(loaded.onstart !== undefined ? { onstart: loaded.onstart } : {}),
  };
}

/** Tests shorten the create flow's status polls (the extension host's environment, as GPU_RENTAL_SSH_HOME). */
function testPollMs(): number | undefined {
  const ms = Number(process.env.GPU_RENTAL_TEST_AGENT_POLL_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

/** The parts that live as long as the window: above all the quote store, which links a confirmation to its invoke. */
let windowPorts: Omit<AgentPorts, 'maxAttempts' | 'pollIntervalMs'> | undefined;

/** The agents' caps in this window: gpuRental.agent.maxPricePerHour and gpuRental.budget.monthly (0: none). */
function agentCaps(services: Pick<Services, 'settings'>): AgentCaps {
  const { agent, budget } = services.settings();
  return {
    ...(agent.maxPricePerHour > 0 ? { maxDphTotal: agent.maxPricePerHour, maxDphFrom: 'the setting gpuRental.agent.maxPricePerHour' } : {}),
    ...(budget.monthly > 0 ? { monthlyBudget: budget.monthly } : {}),
  };
}

/** VS Code's cancellation of a call as the signal the core takes (dispose when the call ends). */
function signalOf(token: vscode.CancellationToken | undefined): { signal?: AbortSignal; dispose(): void } {
  if (!token) return { dispose: () => undefined };
  const c = new AbortController();
  if (token.isCancellationRequested) c.abort();
  const sub = token.onCancellationRequested(() => c.abort());
  return { signal: c.signal, dispose: () => sub.dispose() };
}

/** This window's ports, with the settings as they are at this call (and the call's cancellation). */
function portsFor(services: Services, signal?: AbortSignal): AgentPorts {
  windowPorts ??= {
    api: () => services.api(),
    log: services.log,
    clock: realClock,
    state: services.globalState,
    ssh: sshEntryWriterFor(services),
    sshAliases: async () => new Map((await createWriter(services).entries()).map((e) => [e.id, e.alias])),
    instances: services.instances,
    caps: () => agentCaps(services),
    sshKeys: async () => {
      const keyCheck = await import('../../ssh/vscode/sshKeyCheck');
      // The demo's account is simulated: a key pair is made and registered there without a question, as for a click.
      if (services.connection().demo) await keyCheck.checkSshKey(services, { once: true });
      return {
        home: sshHome(services),
        preferred: keyCheck.preferred(services),
        howToAdd:
          'Run "GPU Rental: Add SSH Key…" from the Command Palette (it registers a key of this machine, or creates one), or set gpuRental.ssh.identityFile to the private key whose public half your account holds.',
      };
    },
    guardDefaults: readGuardSettings,
    apiUrl: () => services.connection().baseUrl,
    loadTemplate: (ref) => workspaceTemplate(services, ref),
    quotes: new QuoteStore(() => Date.now()),
  };
  const poll = testPollMs();
  return { ...windowPorts, maxAttempts: services.settings().templates.maxAttempts, ...(poll ? { pollIntervalMs: poll } : {}), ...(signal ? { signal } : {}) };
}

/** VS Code's prepareInvocation: the confirmation of a tool that needs consent, else only a progress message. */
export async function prepareTool(services: Services, name: string, input: unknown, token?: vscode.CancellationToken): Promise<PreparedToolInvocation> {
  const tool = toolNamed(coreToolName(name));
  if (!tool) throw new Error(`GPU Rental has no tool "${name.slice(0, 60)}".`);
  const invocationMessage = `GPU Rental: ${tool.title}`;
  if (!needsConsent(tool)) return { invocationMessage };
  const call = signalOf(token);
  let consent: Awaited<ReturnType<typeof describeConsent>>;
  try {
    consent = await describeConsent(portsFor(services, call.signal), tool.name, withoutQuote(input));
  } finally {
    call.dispose();
  }
  if (!consent) return { invocationMessage };
  if (consent.quoteId) confirmed.set(callKey(tool.name, input), consent.quoteId);
  const message = new vscode.MarkdownString(`${md(consent.message)}\n\nNothing is sent until you continue.`);
  return { invocationMessage, confirmationMessages: { title: consent.title, message } };
}

/** VS Code's invoke: the tool's short text, or a thrown error a model reads (a refusal, a failure). */
export async function invokeTool(services: Services, name: string, input: unknown, token?: vscode.CancellationToken): Promise<ToolResult> {
  const tool = toolNamed(coreToolName(name));
  if (!tool) throw new Error(`GPU Rental has no tool "${name.slice(0, 60)}".`);
  let raw = withoutQuote(input);
  if (needsConsent(tool)) {
    const key = callKey(tool.name, input);
    const quote = confirmed.get(key);
    confirmed.delete(key);
    if (quote) raw = { ...(raw as object), quote_id: quote };
    else if (tool.effect !== 'destroys') throw new Error(`${tool.name} was not confirmed by the user in this window, so nothing was sent. Call it again.`);
  }
  const call = signalOf(token);
  let result: Awaited<ReturnType<typeof runTool>>;
  try {
    result = await runTool(portsFor(services, call.signal), tool.name, raw);
  } finally {
    call.dispose();
  }
  // A rental whose fate the flow stopped waiting for is watched from now on, as after a click.
  // (The watcher is its own bundle, dist/inflightWatcher.js: its set of watched rentals exists once per window.)
  const late = readInflight(services.globalState).filter((r) => r.late);
  if (late.length)
    background(
      import('../../create/vscode/inflightWatcher').then(({ keepWatching }) => Promise.all(late.map((r) => keepWatching(services, r.instanceId ?? r.label)))),
      services.log,
      'watching a rental of unknown fate',
    );
  if (result.isError) throw new Error(result.text);
  return textResult(result.text);
}
