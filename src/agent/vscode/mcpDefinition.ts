// The MCP server (dist/mcp.js) as VS Code's own agent starts it: a stdio server definition that
// runs the extension host's own Node with this window's service URL, and the key added only when
// VS Code is about to start it. A lazily loaded bundle (agentEntry.ts registers the provider).
//
// Which Node: process.execPath of the extension host. In desktop VS Code that is the Electron
// binary, which runs a script as plain Node with ELECTRON_RUN_AS_NODE=1; in code-server and the
// remote servers it is Node itself (the variable is ignored there). A bare `node` would depend on
// the user's PATH, and on a desktop without Node installed the server would not start at all.
//
// Where the key goes: provideMcpServerDefinitions' answer is cached by VS Code to list servers
// before the extension activates, so it carries no key; resolveMcpServerDefinition (called right
// before the process starts, and not cached) adds VAST_API_KEY to the process environment. Never
// on the command line (visible to every user of the machine in `ps`) and never in a file.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { stdioServer, type McpStdioServerDefinition } from './lmApi';
import { sshHome } from '../../ssh/vscode/sshHost';

export const MCP_SERVER_LABEL = 'GPU Rental';

/** The server's script inside the installed extension. */
export function mcpScript(services: Pick<Services, 'extensionUri'>): string {
  return vscode.Uri.joinPath(services.extensionUri, 'dist', 'mcp.js').fsPath;
}

/**
 * What the server process is given besides the key: Node mode for Electron, the service this
 * window uses (the simulator in demo mode), the home whose SSH config this window manages (the
 * demo's temporary one in demo mode), and the user's monthly budget and agents' per-hour cap settings as its caps.
 */
export function mcpEnv(services: Services): Record<string, string> {
  const { budget, agent } = services.settings();
  return {
    ELECTRON_RUN_AS_NODE: '1',
    VAST_URL: services.connection().baseUrl,
    GPU_RENTAL_SSH_HOME: sshHome(services),
    ...(budget.monthly > 0 ? { GPU_RENTAL_MONTHLY_BUDGET: String(budget.monthly) } : {}),
    ...(agent.maxPricePerHour > 0 ? { GPU_RENTAL_MAX_DPH: String(agent.maxPricePerHour) } : {}),
  };
}

/** The definitions VS Code lists: one server when signed in (its tools would only fail signed out). */
export async function mcpServers(services: Services, version: string): Promise<McpStdioServerDefinition[]> {
  await services.ready;
  if (!services.connection().signedIn) return [];
  const server = stdioServer(MCP_SERVER_LABEL, process.execPath, [mcpScript(services)], mcpEnv(services), version);
  return server ? [server] : [];
}

/** Right before VS Code starts the server: the current key, through the environment only. */
export async function resolveMcpServer(services: Services, server: McpStdioServerDefinition): Promise<McpStdioServerDefinition> {
  await services.ready;
  const key = services.connectionState.token();
  if (!key) throw new Error('GPU Rental is signed out: run "GPU Rental: Set API Key" (or Try Demo Mode), then start the server again.');
  server.env = { ...server.env, ...mcpEnv(services), VAST_API_KEY: key };
  return server;
}

/** Integration tests: the definition VS Code would list (and cache) and the one it would start, as a copy each. */
export async function definitionForTests(
  services: Services,
  version: string,
): Promise<{ listed: McpStdioServerDefinition; resolved: McpStdioServerDefinition } | undefined> {
  const [server] = await mcpServers(services, version);
  if (!server) return undefined;
  const listed = { ...server, args: [...server.args], env: { ...server.env } };
  return { listed, resolved: await resolveMcpServer(services, server) };
}
