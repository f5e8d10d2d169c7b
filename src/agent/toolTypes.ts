// The agent tools' contract: what a tool is, what it may touch (its ports) and what it returns.
// Plain TypeScript: the VS Code language-model tool adapters (agent/vscode/) and the MCP
// server's entry (mcpServer.ts) both drive the same catalogue through these shapes, so a rent
// by an agent runs the same create flow, money rules and guard as a click.
import type * as z from 'zod/mini';
import type { Logger, ServiceApi } from '../api/types';
import type { InstanceStore, KeyValueStore } from '../core/ports';
import type { GuardDefaults } from '../guard/plan';
import type { SshEntryWriter } from '../ssh/sshTypes';
import type { Clock } from '../create/flowTypes';
import type { LoadedTemplate } from '../create/templateValidation';
import type { Template } from '../create/templateSchema';
import type { QuoteKind, QuoteStore } from './quotes';

/**
 * What calling a tool may do. `spends` (rents, starts), `changes-price` (accepts or rejects a
 * host's price increase) and `destroys` need the user's consent before anything is sent: VS
 * Code's confirmation, or, where no editor can ask, a quote id or the instance echoed back.
 */
export type ToolEffect = 'read' | 'stops' | 'spends' | 'changes-price' | 'destroys';

export const CONSENT_EFFECTS: readonly ToolEffect[] = ['spends', 'changes-price', 'destroys'];

/** Short structured text a model can act on (ids, states, prices): never a raw dump, never a secret. */
export interface ToolResult {
  text: string;
  isError?: boolean;
}

/** A refusal the caller can act on: nothing was sent, or what was sent is said. Its message is shown as is. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** The caps an agent may not break: checked before anything is sent (caps.ts). */
export interface AgentCaps {
  /** $/h, disk included, above which nothing is rented, started or accepted. */
  maxDphTotal?: number;
  /** Dollars per calendar month (UTC) that charges plus the next hour may not exceed. */
  monthlyBudget?: number;
  /** Where the per-hour cap is set (a setting, a variable, a file), named in a refusal so the user knows what to change. */
  maxDphFrom?: string;
}

/** Where this machine's SSH keys are looked for before a rent (ssh/keys.ts), and how the user adds one. */
export interface AgentKeyPlace {
  /** The home whose ~/.ssh holds the keys (the one the SSH entries are written for). */
  home: string;
  /** Key paths to look at first (a key picked before, a setting). */
  preferred: readonly string[];
  /** A sentence: how to put a key on the account from where the agent runs. */
  howToAdd: string;
}

/** This month's charges and the account's running rate. */
export interface SpendingNow {
  spentThisMonth: number;
  ratePerHour: number;
}

/** A template ready to rent from: parsed, variables expanded, its onstart read. */
export interface RentTemplate extends Pick<LoadedTemplate, 'onstart' | 'secrets'> {
  template: Template;
  /** Where it came from (a workspace path, a file), for the in-flight record and the messages. */
  templatePath: string;
}

/** What the tools use; each front end builds one (the VS Code adapters from Services, the MCP server from env). */
export interface AgentPorts {
  /** The API client (one per URL; it redacts its key). Rejects with a clear message when there is no key. */
  api(): Promise<ServiceApi>;
  log: Logger;
  clock: Clock;
  /** In-flight rentals and per-instance SSH options (the create flow's records). */
  state: KeyValueStore;
  ssh: SshEntryWriter;
  /** Where this machine's SSH keys are: a rent is refused when the account holds none of them (sshKeyGate.ts). */
  sshKeys(): Promise<AgentKeyPlace>;
  /** The SSH aliases written so far, by instance id (rows say `ssh <alias>` only when one exists). */
  sshAliases?(): Promise<ReadonlyMap<number, string>>;
  instances?: Pick<InstanceStore, 'upsert' | 'watch' | 'remove'>;
  caps(): AgentCaps;
  /** This month's charges and the running rate (default: read from the service, see caps.ts). */
  spending?(): Promise<SpendingNow>;
  guardDefaults(): GuardDefaults;
  /** The service URL the idle guard on a rented machine calls. */
  apiUrl(): string;
  /** Loads a template by the reference an agent gave (a workspace path, a file): throws ToolError when it cannot. */
  loadTemplate(ref: string): Promise<RentTemplate>;
  quotes: QuoteStore;
  random?: () => number;
  /** Rent attempts in total (default 3) and the create flow's waits (tests shorten them). */
  maxAttempts?: number;
  pollIntervalMs?: number;
  maxWaitMs?: number;
  /**
   * How long a rent's answer waits for the rented machine to run (the create flow goes on after
   * it, watched, its SSH entry written when it runs). Absent: the answer waits for the flow.
   */
  answerWithinMs?: number;
  /**
   * This call's cancellation (VS Code's CancellationToken, as a signal): it ends the tool's waits
   * (a rent's wait for its machine, a log's upload), never a rent whose request may have been
   * sent: that one goes on, tracked by the create flow as after a click.
   */
  signal?: AbortSignal;
}

/** What a call of a consent tool would do, as the user is asked it; `quote` is what its confirm runs. */
export interface ConsentText {
  title: string;
  message: string;
  quote?: { kind: QuoteKind; plan: unknown };
}

export interface AgentTool<S extends z.ZodMiniType = z.ZodMiniType> {
  /** snake_case, unique; the MCP tool name and the VS Code tool name. */
  name: string;
  title: string;
  /** Tells a model when to use it and what it returns. */
  modelDescription: string;
  input: S;
  effect: ToolEffect;
  /**
   * The tools that spend, change a price or destroy: what the call would do (reads, checks the
   * caps and throws ToolError when one would be broken; sends nothing). With `quote`, a call
   * without quote_id only quotes (toolCatalogue.ts) and the handler runs the quoted plan.
   */
  consent?(ports: AgentPorts, input: z.infer<S>): Promise<ConsentText>;
  handler(ports: AgentPorts, input: z.infer<S>): Promise<ToolResult>;
}
