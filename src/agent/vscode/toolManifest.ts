// package.json's `contributes.languageModelTools`, generated from the tool catalogue: the one
// source of names, descriptions and input schemas. `node scripts/agentManifest.mjs` writes it;
// test/unit/agent/toolManifest.test.ts fails when package.json and the catalogue differ.
// No `vscode` import: the unit tier and the script load it.
//
// What differs from the MCP server's list, and why:
// - names carry the prefix `gpuRental_`: VS Code's tool names are global across extensions; the
//   catalogue's own name is the `toolReferenceName` (#search_offers in a chat prompt);
// - `quote_id` is not in the input schemas: in VS Code the editor itself asks the user
//   (prepareInvocation's confirmation), so there is no second call with a quote;
// - for the same reason the tools quoted in two steps get the descriptions below instead.
import { CONSENT_EFFECTS, toolManifest, type ToolEffect } from '../toolCatalogue';

export const VSCODE_TOOL_PREFIX = 'gpuRental_';

/** The catalogue's name of a VS Code tool name. */
export function coreToolName(name: string): string {
  return name.startsWith(VSCODE_TOOL_PREFIX) ? name.slice(VSCODE_TOOL_PREFIX.length) : name;
}

/** modelDescription in VS Code for the tools whose catalogue text explains the MCP server's quote step. */
export const EDITOR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  rent: "Rent a GPU machine (it bills by the hour until stopped or destroyed), from an offer id (search_offers) with a workspace template or a container image, or from a template alone (its cheapest fitting offer). VS Code shows the user the price per hour with disk, the idle guard that will stop it and the budget left, and rents exactly one machine only if they agree; the answer gives the instance id, its state and its SSH alias once it runs. Refused (nothing rented) when the template's price cap, the per-hour cap for agents (gpuRental.agent.maxPricePerHour) or the budget would be broken, or when the account holds none of this machine's SSH keys.",
  start_instance:
    'Start a stopped instance again (it bills its hourly price from then on). VS Code shows the user the price, the idle guard and the budget left first, and starts it only if they agree. Refused when the per-hour cap for agents or the budget would be broken.',
  decide_price_increase:
    "Accept or reject a host's pending price increase (from price_increases). VS Code shows the user the old and new price first and decides only if they agree.",
};

export interface LanguageModelToolContribution {
  name: string;
  displayName: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: boolean;
  userDescription: string;
  modelDescription: string;
  icon: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
}

function withoutQuoteId(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, unknown> | undefined;
  if (!props || !('quote_id' in props)) return schema;
  const { quote_id: _dropped, ...rest } = props;
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((r) => r !== 'quote_id') : undefined;
  return { ...schema, properties: rest, ...(required ? { required } : {}) };
}

/** The first sentence of the model's description: what the user reads in the tool picker. */
function firstSentence(text: string): string {
  const m = /^.*?[.!?](?=\s|$)/.exec(text);
  return (m ? m[0] : text).replace(/\s*\([^)]*$/, '');
}

type CatalogueEntry = ReturnType<typeof toolManifest>[number];

function contribution(tool: CatalogueEntry): LanguageModelToolContribution {
  const modelDescription = EDITOR_DESCRIPTIONS[tool.name] ?? tool.modelDescription;
  return {
    name: VSCODE_TOOL_PREFIX + tool.name,
    displayName: tool.title,
    toolReferenceName: tool.name,
    canBeReferencedInPrompt: true,
    userDescription: firstSentence(modelDescription),
    modelDescription,
    icon: CONSENT_EFFECTS.includes(tool.effect as ToolEffect) ? '$(credit-card)' : '$(server)',
    tags: ['gpu-rental', tool.effect],
    inputSchema: withoutQuoteId(tool.inputSchema),
  };
}

/** @internal test  contributes.languageModelTools as package.json must hold it (and scripts/agentManifest.mjs writes). */
export function languageModelTools(): LanguageModelToolContribution[] {
  return toolManifest().map(contribution);
}
