// `node dist/mcp.js`: the MCP server over stdio (Claude Code, Cursor, Codex, VS Code). Its
// environment says where and how (mcpPorts.ts, docs/agents.md); stdout carries only the
// protocol, every log line goes to stderr with the key masked.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './mcpServer';
import { mcpPorts } from './mcpPorts';
import { resumeMcpRentals } from './mcpResume';
import { background } from '../core/background';

/** The extension's version, set by the build (scripts/build.mjs). */
declare const GPU_RENTAL_VERSION: string;

async function main(): Promise<void> {
  const write = (line: string) => void process.stderr.write(line);
  let env;
  try {
    env = await mcpPorts(process.env, { cwd: process.cwd(), write });
  } catch (e) {
    write(`gpu-rental MCP server: ${e instanceof Error ? e.message : 'could not start'}\n`);
    process.exitCode = 1;
    return;
  }
  const server = createMcpServer(env.ports, GPU_RENTAL_VERSION);
  const transport = new StdioServerTransport();
  transport.onclose = () => background(env.close(), env.ports.log, 'closing the connections');
  await server.connect(transport);
  write(`gpu-rental MCP server ready: ${env.describe}\n`);
  resumeMcpRentals(env.ports);
  // A wrong key is said now, not at the agent's first call; and that call finds the HTTP client and schemas loaded.
  background(
    env.ports.api().then(async (api) => {
      await api.currentUser();
      env.ports.log.info('agent: the API key works');
    }),
    env.ports.log,
    'checking the API key',
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`gpu-rental MCP server failed: ${e instanceof Error ? e.message : 'unknown error'}\n`);
  process.exitCode = 1;
});
