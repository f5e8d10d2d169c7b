// Starts the built MCP server (dist/mcp.js, as a client would: `node dist/mcp.js` over stdio)
// against this file's simulator and drives it with the official SDK's client.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from '../repoRoot';
import { memoryLog, template } from '../create/flowHarness';
import { createApiClient } from '../../../src/api/client';
import type { StartedSim } from '../../kit/sim';
import type { Instance } from '../../../src/api/types';
import { testKeyHome } from './agentHarness';

export interface McpRun {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** The temporary folder: workspace/ (the server's cwd), config/, home/. */
  dir: string;
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export const SIM_KEY = 'sim-api-key';

/** The server as an MCP client starts it, with `env` over the test defaults; `server` defaults to dist/mcp.js of this checkout. */
export async function startMcp(sim: StartedSim, o: { env?: Record<string, string>; server?: string; accountKey?: boolean } = {}): Promise<McpRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-mcp-'));
  mkdirSync(join(dir, 'workspace/.gpu'), { recursive: true });
  mkdirSync(join(dir, 'home/.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'workspace/.gpu/test.json'), JSON.stringify(template));
  // The user's key pair in the server's home, on the account unless `accountKey` is false (a rent is refused then).
  for (const f of ['id_ed25519', 'id_ed25519.pub']) copyFileSync(join(testKeyHome().home, '.ssh', f), join(dir, 'home/.ssh', f));
  if (o.accountKey !== false) await accountHoldsKey(sim);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [o.server ?? join(repoRoot(), 'dist/mcp.js')],
    cwd: join(dir, 'workspace'),
    stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: join(dir, 'home'),
      VAST_API_KEY: SIM_KEY,
      VAST_URL: sim.url,
      GPU_RENTAL_CONFIG_DIR: join(dir, 'config'),
      ...o.env,
    },
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const client = new Client({ name: 'gpu-rental-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    dir,
    stderr: () => err,
    async call(name, args = {}) {
      const r = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
      return { text: r.content.map((c) => c.text ?? '').join('\n'), isError: r.isError === true };
    },
    async close() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The test key pair registered on the simulator's account (again after a reset of the simulator). */
export async function accountHoldsKey(sim: StartedSim): Promise<void> {
  await createApiClient({ baseUrl: sim.url, credentials: { token: () => SIM_KEY }, log: memoryLog(), pacing: 'off' }).addSshKey(testKeyHome().line);
}

/** Create requests the simulator received. */
export async function rentsSent(sim: StartedSim): Promise<number> {
  return (await sim.ctl.requests()).filter((r) => r.method === 'PUT' && r.path.includes('/asks/')).length;
}

/** The ids of every instance the simulator holds, visible in reads or not. */
export async function held(sim: StartedSim): Promise<number[]> {
  const res = await fetch(`${sim.url}/_sim/state`);
  return ((await res.json()) as { instances: Array<{ id: number }> }).instances.map((i) => i.id);
}

/** The instances as the account's list shows them (label, onstart…). */
export async function listed(sim: StartedSim): Promise<Instance[]> {
  return (await createApiClient({ baseUrl: sim.url, credentials: { token: () => SIM_KEY }, log: memoryLog(), pacing: 'off' }).listInstances()).instances;
}
