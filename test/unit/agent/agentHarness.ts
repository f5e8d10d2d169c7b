// The agent tools' test harness: the create flow's simulator and clock (../create/flowHarness.ts)
// behind AgentPorts, with the caps and the spending a test sets.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient } from '../../../src/api/client';
import { generateEd25519 } from '../../../src/ssh/keygen';
import type { ServiceApi } from '../../../src/api/types';
import { DEFAULT_GUARD } from '../../../src/guard/plan';
import { MemoryState } from '../../kit/state';
import { QuoteStore, type AgentCaps, type AgentPorts, type SpendingNow } from '../../../src/agent/toolCatalogue';
import { ToolError } from '../../../src/agent/toolTypes';
import { imageTemplate } from '../../../src/agent/rentTool';
import { flowSim, memoryLog, simClock, template } from '../create/flowHarness';

export interface AgentHarness {
  ports: AgentPorts;
  api: ServiceApi;
  log: ReturnType<typeof memoryLog>;
  state: MemoryState;
  sshWrites: number[];
  caps: AgentCaps;
  /** Set to fix the spending the budget is judged on (default: read from the simulator). */
  spending?: SpendingNow;
}

/** One SSH home per test process with a key pair (the agent's key check looks there); removed when the process ends. */
let keyHome: { home: string; line: string } | undefined;
export function testKeyHome(): { home: string; line: string } {
  if (keyHome) return keyHome;
  const home = mkdtempSync(join(tmpdir(), 'gpu-agent-keys-'));
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  const pair = generateEd25519('agent-unit-test');
  writeFileSync(join(home, '.ssh', 'id_ed25519'), pair.private, { mode: 0o600 });
  writeFileSync(join(home, '.ssh', 'id_ed25519.pub'), `${pair.public.trim()}\n`);
  process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  return (keyHome = { home, line: pair.public.trim() });
}

/**
 * `accountKey` (default true): the account holds the test home's key, registered (by a client
 * without faults) before the first key check, as a user who added it once; false: it holds none.
 */
export function agentHarness(o: { caps?: AgentCaps; wrap?: (api: ServiceApi) => ServiceApi; timeoutMs?: number; accountKey?: boolean } = {}): AgentHarness {
  const log = memoryLog();
  const raw = createApiClient({
    baseUrl: flowSim.sim.url,
    credentials: { token: () => 'sim-api-key' },
    log,
    timeoutMs: o.timeoutMs ?? 5000,
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    pacing: 'off',
  });
  const api = o.wrap ? o.wrap(raw) : raw;
  let registered: Promise<unknown> | undefined;
  const clock = simClock();
  const state = new MemoryState();
  const h: AgentHarness = {
    api,
    log,
    state,
    sshWrites: [],
    caps: o.caps ?? {},
    ports: undefined as unknown as AgentPorts,
  };
  h.ports = {
    api: async () => api,
    log,
    clock,
    state,
    ssh: {
      writeEntry: async (inst) => {
        h.sshWrites.push(inst.id);
        return `gpu-${inst.id}`;
      },
    },
    sshAliases: async () => new Map(h.sshWrites.map((id) => [id, `gpu-${id}`])),
    sshKeys: async () => {
      const { home, line } = testKeyHome();
      if (o.accountKey !== false) await (registered ??= raw.addSshKey(line));
      return { home, preferred: [], howToAdd: 'Add one with the test kit.' };
    },
    caps: () => h.caps,
    ...({ spending: async () => h.spending ?? (await import('../../../src/agent/caps')).readSpending(api, clock.now()) } satisfies Pick<
      AgentPorts,
      'spending'
    >),
    guardDefaults: () => DEFAULT_GUARD,
    apiUrl: () => flowSim.sim.url,
    loadTemplate: async (ref) => {
      if (ref === '.gpu/test.json') return { template, templatePath: ref, secrets: [] };
      if (ref === '.gpu/image.json') return imageTemplate('pytorch/pytorch:latest', 10);
      throw new ToolError(`Template "${ref}" was not found.`);
    },
    quotes: new QuoteStore(() => clock.now()),
    pollIntervalMs: 10_000,
  };
  return h;
}

/** The quote id a quoting call returned. */
export function quoteIdOf(text: string): string {
  const m = /quote_id "([^"]+)"/.exec(text);
  if (!m) throw new Error(`no quote id in: ${text}`);
  return m[1]!;
}
