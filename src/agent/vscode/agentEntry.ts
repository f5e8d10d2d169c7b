// What activation registers for agents: one language-model tool per entry of package.json's
// `languageModelTools` (which a unit test keeps equal to the tool catalogue), and the MCP server
// definition provider. Only thin forwarders live in the activation bundle; the catalogue, its
// schemas and the adapter load on the first call (dist/agentTools.js, dist/mcpDefinition.js).
// Registered during activate() itself: VS Code invokes a tool right after activating the
// extension for it (onLanguageModelTool:…), and a tool registered later would be missing then.
// Where the API does not exist (VS Code before 1.95; the MCP provider before 1.101) nothing is
// registered and the rest of the extension works as before.
import type * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { describeError } from '../../core/describeError';
import { Emitter } from '../../core/events';
import { lmApi } from './lmApi';

/** The id in package.json's contributes.mcpServerDefinitionProviders. */
const MCP_PROVIDER_ID = 'gpuRental.mcpServer';

interface Manifest {
  version?: string;
  contributes?: { languageModelTools?: { name?: unknown }[] };
}

/**
 * What integration tests call directly: VS Code's own test host answers every confirmation dialog
 * with Yes without showing it, so the confirmation's text is checked through prepare().
 */
export interface AgentToolsHandle {
  prepare(name: string, input: unknown): Promise<{ invocationMessage?: unknown; confirmationMessages?: { title: string; message: unknown } }>;
  /** invoke() as VS Code calls it after prepare(), with a token the test cancels (lm.invokeTool rejects at once on a cancel, hiding the answer). */
  invoke(name: string, input: unknown, token: vscode.CancellationToken): Promise<{ content: readonly unknown[] }>;
  /** The MCP server definition as listed to VS Code and as resolved to start it (undefined: none offered). */
  mcpServer(): ReturnType<typeof import('./mcpDefinition').definitionForTests>;
}

/** Registers the tools and the MCP server where this VS Code can; undefined where it has no tool API. */
export function registerAgentSurfaces(services: Services, context: Pick<vscode.ExtensionContext, 'extension'>): AgentToolsHandle | undefined {
  const lm = lmApi();
  if (!lm) return undefined;
  const manifest = context.extension.packageJSON as Manifest;
  let adapter: Promise<typeof import('./agentTools')> | undefined;
  const tools = () => (adapter ??= import('./agentTools'));
  const mcp = () => import('./mcpDefinition');
  const version = manifest.version ?? '0';
  const handle: AgentToolsHandle = {
    prepare: async (name, input) => (await tools()).prepareTool(services, name, input),
    invoke: async (name, input, token) => (await tools()).invokeTool(services, name, input, token),
    mcpServer: async () => (await mcp()).definitionForTests(services, version),
  };
  for (const { name } of manifest.contributes?.languageModelTools ?? []) {
    if (typeof name !== 'string') continue;
    services.track(
      lm.registerTool(name, {
        prepareInvocation: async (o, token) => (await tools()).prepareTool(services, name, o.input, token),
        invoke: async (o, token) => (await tools()).invokeTool(services, name, o.input, token),
      }),
    );
  }
  if (!lm.registerMcpServerDefinitionProvider) return handle;
  // A sign-in, sign-out or demo switch changes the server VS Code should list (and its key).
  const changed = new Emitter<void>();
  services.track(changed);
  services.track(services.onDidChangeConnection(() => changed.fire()));
  try {
    services.track(
      lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions: async () => (await mcp()).mcpServers(services, version),
        resolveMcpServerDefinition: async (server) => (await mcp()).resolveMcpServer(services, server),
      }),
    );
  } catch (e) {
    // VS Code 1.100 has the function behind a proposed-API flag and throws.
    services.log.info(`agents: the MCP server is not offered to VS Code's agent here (${describeError(e)})`);
  }
  return handle;
}
