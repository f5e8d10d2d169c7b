// The tool catalogue: every tool an agent can call, in one list, for both front ends (the VS Code
// language-model tools and the MCP server). `invokeTool` is the one way in: it checks the input
// with the tool's zod schema (a clear error, nothing sent, for a wrong, negative or huge value),
// runs the handler and turns every failure into a short tool error with no secret in it.
// `describeConsent` is the confirmation text of a tool that spends, changes a price or destroys.
import * as z from 'zod/mini';
import { describeError } from '../core/describeError';
import { redact } from '../api/redact';
import { destroyInstance, decidePriceIncrease, startInstance, stopInstance } from './actionTools';
import { instanceDetails, instanceLogs, listInstances, priceIncreases, searchOffers, spending, sshInfo } from './readTools';
import { rent } from './rentTool';
import type { AgentPorts, AgentTool, ToolResult } from './toolTypes';
import { CONSENT_EFFECTS, ToolError } from './toolTypes';

export * from './toolTypes';
export { QuoteStore, QUOTE_TTL_MS } from './quotes';

/** Every tool, read-only ones first. */
export const TOOLS: readonly AgentTool[] = [
  searchOffers,
  listInstances,
  instanceDetails,
  spending,
  instanceLogs,
  priceIncreases,
  sshInfo,
  rent,
  startInstance,
  stopInstance,
  destroyInstance,
  decidePriceIncrease,
] as readonly AgentTool[];

export function toolNamed(name: string): AgentTool | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** Whether calling the tool needs the user's consent first (it spends, changes a price or destroys). */
export function needsConsent(tool: AgentTool): boolean {
  return CONSENT_EFFECTS.includes(tool.effect);
}

/** The tool's input as JSON Schema (draft-07), generated from its zod schema: the one source of package.json's and the MCP server's. */
export function toolJsonSchema(tool: AgentTool): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return schema;
}

/** The first problem with an input, as a sentence naming the field. */
function inputProblem(tool: AgentTool, issues: readonly z.core.$ZodIssue[]): string {
  const i = issues[0];
  const where = i?.path.length ? i.path.map(String).join('.') : 'input';
  const what =
    i?.code === 'unrecognized_keys'
      ? `unknown field(s) ${i.keys.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}`
      : i?.code === 'too_small'
        ? `must be at least ${String(i.minimum)}${i.origin === 'string' ? ' characters' : ''}`
        : i?.code === 'too_big'
          ? `must be at most ${String(i.maximum)}${i.origin === 'string' ? ' characters' : ''}`
          : i?.code === 'invalid_type'
            ? `must be ${i.expected === 'int' ? 'a whole number' : `a ${i.expected}`}`
            : i?.code === 'invalid_value'
              ? `must be one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`
              : 'is not valid';
  return `Invalid input for ${tool.name}: ${where} ${what}. Nothing was sent.`;
}

/** A quote's text: what it would do and how to go on. */
function quoteText(c: Consent, nowMs: number): string {
  const min = Math.max(1, Math.round(((c.expiresAt ?? nowMs) - nowMs) / 60_000));
  return `Quote ${c.quoteId}: ${c.message}\nNothing was sent yet. Ask the user; if they agree, call this tool again with the same arguments and quote_id "${c.quoteId}" (valid ${min} min).`;
}

/**
 * Runs a tool by name on raw input: its result, or a tool error (never a throw, never a secret).
 * A tool that quotes (rent, start, price decisions), called without quote_id, only quotes.
 */
export async function invokeTool(ports: AgentPorts, name: string, raw: unknown): Promise<ToolResult> {
  const tool = toolNamed(name);
  if (!tool)
    return {
      text: `There is no tool "${String(name)
        .slice(0, 60)
        .replace(/[^\w-]/g, '?')}". Tools: ${TOOLS.map((t) => t.name).join(', ')}.`,
      isError: true,
    };
  const parsed = z.safeParse(tool.input, raw ?? {});
  if (!parsed.success) return { text: inputProblem(tool, parsed.error.issues), isError: true };
  try {
    const input = parsed.data as { quote_id?: string };
    if (QUOTING.has(tool.name) && input.quote_id === undefined) {
      const c = (await describeConsent(ports, tool.name, input))!;
      return { text: quoteText(c, ports.clock.now()) };
    }
    return await tool.handler(ports, parsed.data);
  } catch (e) {
    return { text: errorText(ports, tool, e), isError: true };
  }
}

function errorText(ports: AgentPorts, tool: AgentTool, e: unknown): string {
  if (e instanceof ToolError) return e.message;
  if (tool.effect === 'read' && ports.signal?.aborted) return `${tool.name} was cancelled; nothing was changed.`;
  ports.log.warn(`agent: ${tool.name} failed: ${e instanceof Error ? `${e.name}: ${e.message}` : 'non-error thrown'}`);
  // What was sent is said by the handler; here only reads and single requests fail, so whether it happened is unknown.
  const what = tool.effect === 'read' ? '' : ' Whether it took effect is not known: check with list_instances before trying again.';
  return `${tool.name} failed: ${redact(describeError(e))}${what}`;
}

/** The confirmation a tool needs before it runs: what it costs or destroys, the guard, the budget left. */
export interface Consent {
  title: string;
  message: string;
  /** The quote the confirmation is for: pass it as quote_id so exactly what was shown runs. */
  quoteId?: string;
  /** When the quote expires (the ports' clock, ms). */
  expiresAt?: number;
}

/** The tools whose call without quote_id quotes. */
const QUOTING = new Set(TOOLS.filter((t) => 'quote_id' in ((toolJsonSchema(t).properties as object | undefined) ?? {})).map((t) => t.name));

async function consentOf(ports: AgentPorts, tool: AgentTool, input: unknown): Promise<Consent | undefined> {
  if (!tool.consent) return undefined;
  const c = await tool.consent(ports, input);
  const q = c.quote ? ports.quotes.put(c.quote.kind, c.quote.plan, c.message) : undefined;
  return { title: c.title, message: c.message, ...(q ? { quoteId: q.id, expiresAt: q.expiresAt } : {}) };
}

/**
 * The confirmation text for a call (undefined: the tool needs none). For the tools that quote it
 * also makes the quote the text describes: the caller passes its id (quote_id) with the call the
 * user agreed to, so exactly what was shown runs, once. Throws ToolError when the input is wrong
 * or the call would break a cap (nothing to ask, nothing sent).
 */
export async function describeConsent(ports: AgentPorts, name: string, raw: unknown): Promise<Consent | undefined> {
  const tool = toolNamed(name);
  if (!tool || !needsConsent(tool)) return undefined;
  const parsed = z.safeParse(tool.input, raw ?? {});
  if (!parsed.success) throw new ToolError(inputProblem(tool, parsed.error.issues));
  return consentOf(ports, tool, parsed.data);
}

/** What package.json's languageModelTools and the MCP tool list show of each tool. */
export function toolManifest(): Array<{ name: string; title: string; modelDescription: string; effect: string; inputSchema: Record<string, unknown> }> {
  return TOOLS.map((t) => ({ name: t.name, title: t.title, modelDescription: t.modelDescription, effect: t.effect, inputSchema: toolJsonSchema(t) }));
}
