// The MCP server's ports, from its environment: the API key as the official CLI finds it
// (VAST_API_KEY, else its key file), the URL from VAST_URL, the caps from env or a small JSON
// config file, the in-flight records and SSH options in a state file under the user's config
// folder (never the workspace), SSH entries in the same managed file the extension writes.
import { mkdir, readFile, rename, writeFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import * as z from 'zod/mini';
import { createApiClient } from '../api/client';
import type { Logger, ServiceApi } from '../api/types';
import { createRedactingLogger } from '../api/redact';
import { isLoopbackUrl } from '../api/loopback';
import { checkBaseUrl } from '../core/connection';
import type { KeyValueStore } from '../core/ports';
import { findCliKey } from '../account/apiKey';
import { DEFAULT_GUARD } from '../guard/plan';
import { SshConfigWriter } from '../ssh/sshConfigWriter';
import { realClock } from '../create/flowTypes';
import { loadTemplate } from '../create/templateValidation';
import { QuoteStore } from './quotes';
import type { AgentCaps, AgentPorts, RentTemplate } from './toolTypes';
import { ToolError } from './toolTypes';

type Env = Record<string, string | undefined>;

/** The folder of the server's state and config: $GPU_RENTAL_CONFIG_DIR, else <XDG config>/gpu-rental. */
export function configDir(env: Env, home = homedir()): string {
  if (env.GPU_RENTAL_CONFIG_DIR?.trim()) return resolve(env.GPU_RENTAL_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME?.trim() || (process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(home, '.config'));
  return join(base, 'gpu-rental');
}

const capNumber = z.number().check(z.gt(0), z.lte(1_000_000));
const CapsFile = z.strictObject({ maxDphTotal: z.optional(capNumber), monthlyBudget: z.optional(capNumber) });

function envCap(env: Env, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 1_000_000)
    throw new Error(`${name} must be a positive number of dollars (got "${raw.slice(0, 20)}"). Fix it or unset it.`);
  return n;
}

/**
 * The caps: GPU_RENTAL_MAX_DPH and GPU_RENTAL_MONTHLY_BUDGET, over <config dir>/agent.json
 * ({"maxDphTotal": 2, "monthlyBudget": 100}). A cap that cannot be read stops the server (a
 * typo must never mean "no cap").
 */
export async function readCaps(env: Env, dir: string): Promise<AgentCaps> {
  const file = env.GPU_RENTAL_AGENT_CONFIG?.trim() || join(dir, 'agent.json');
  let fromFile: AgentCaps = {};
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || env.GPU_RENTAL_AGENT_CONFIG?.trim())
      throw new Error(`The agent config ${file} could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'}).`, { cause: e });
  }
  if (text !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`The agent config ${file} is not valid JSON. Write it as {"maxDphTotal": 2, "monthlyBudget": 100}.`);
    }
    const r = z.safeParse(CapsFile, json);
    if (!r.success)
      throw new Error(
        `The agent config ${file} is not valid: ${r.error.issues[0]?.path.join('.') || 'it'} must be a positive number of dollars, and only maxDphTotal and monthlyBudget are known.`,
      );
    fromFile = r.data;
  }
  const envDph = envCap(env, 'GPU_RENTAL_MAX_DPH');
  const maxDphTotal = envDph ?? fromFile.maxDphTotal;
  const monthlyBudget = envCap(env, 'GPU_RENTAL_MONTHLY_BUDGET') ?? fromFile.monthlyBudget;
  return {
    ...(maxDphTotal !== undefined ? { maxDphTotal, maxDphFrom: envDph !== undefined ? 'GPU_RENTAL_MAX_DPH' : `maxDphTotal in ${file}` } : {}),
    ...(monthlyBudget !== undefined ? { monthlyBudget } : {}),
  };
}

/**
 * Key-value state in one JSON file (mode 0600), written whole and atomically (temporary file,
 * then rename). Each write reads the file again and changes only its key, so two servers (two
 * editors) keep each other's other keys.
 */
export async function fileState(file: string): Promise<KeyValueStore> {
  const read = async (): Promise<Record<string, unknown>> => {
    try {
      const v = JSON.parse(await readFile(file, 'utf8')) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  let cache = await read();
  let n = 0;
  return {
    get: <T>(key: string) => cache[key] as T | undefined,
    async update(key, value) {
      cache = { ...(await read()), [key]: value };
      if (value === undefined) delete cache[key];
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.${n++}.tmp`;
      await writeFile(tmp, JSON.stringify(cache), { mode: 0o600 });
      await rename(tmp, file);
    },
  };
}

/** A stderr logger for the server (stdout carries the protocol), with every known secret masked. */
export function stderrLogger(write: (line: string) => void, secrets: () => ReadonlyArray<string | undefined>): Logger {
  const at = (level: string) => (m: string) => write(`[${level}] ${m}\n`);
  const quiet = () => undefined;
  return createRedactingLogger({ trace: quiet, debug: quiet, info: at('info'), warn: at('warn'), error: at('error') }, secrets);
}

/** A file inside the folder the server runs in (the workspace), by its real path; undefined when it is not there or outside it. */
async function workspaceFile(root: string, ref: string): Promise<string | undefined> {
  try {
    const real = await realpath(resolve(root, ref));
    const rel = relative(await realpath(root), real);
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : real;
  } catch {
    return undefined;
  }
}

/** Template files an agent may name: .json files inside the workspace. */
async function templateFile(root: string, ref: string): Promise<string> {
  const real = await workspaceFile(root, ref);
  if (!real || !/\.jsonc?$/i.test(real))
    throw new ToolError(
      `Template "${ref.slice(0, 100)}" is not a .json file inside the workspace folder the server runs in (${root}). Give a path relative to it, e.g. .gpu/train.json. Nothing was rented.`,
    );
  return real;
}

/** GPU_RENTAL_ANSWER_WITHIN_S: seconds a rent's answer waits for the machine (1 to 600, default 40). */
function answerWithin(env: Env): number {
  const raw = env.GPU_RENTAL_ANSWER_WITHIN_S?.trim();
  const n = raw ? Number(raw) : 40;
  if (!Number.isFinite(n) || n < 1 || n > 600)
    throw new Error(`GPU_RENTAL_ANSWER_WITHIN_S must be a number of seconds from 1 to 600 (got "${(raw ?? '').slice(0, 20)}").`);
  return n;
}

/** How to put a key on the account from outside VS Code. */
const NO_KEY_HOW_TO =
  'Add your public key (the .pub file; create a pair with ssh-keygen -t ed25519 if you have none) to your account: on the SSH keys page of the service\'s website, or in VS Code with "GPU Rental: Add SSH Key…".';

export interface McpEnvPorts {
  ports: AgentPorts;
  /** What the server runs against (for its start line): the URL and where the key came from. */
  describe: string;
  close(): Promise<void>;
}

/** The ports of one server process; throws (a sentence for stderr) when the key, URL or caps are wrong. */
export async function mcpPorts(env: Env, o: { cwd: string; home?: string; write: (line: string) => void }): Promise<McpEnvPorts> {
  const home = o.home ?? homedir();
  const url = checkBaseUrl(env.VAST_URL);
  if (!url.ok) throw new Error(url.message.replace('The setting gpuRental.apiBaseUrl', 'VAST_URL'));
  const found = await findCliKey({ env, home });
  if (!found) throw new Error('No API key: set VAST_API_KEY, or sign in with the official CLI (vastai set api-key …) so its key file exists.');
  const key = found.key;
  const log = stderrLogger(o.write, () => [key, ...(api?.knownSecrets?.() ?? [])]);
  // Its own process, without VS Code's proxy settings: the environment's HTTPS_PROXY/NO_PROXY, never for this computer.
  const api: ServiceApi = createApiClient({ baseUrl: url.url, credentials: { token: () => key }, log, ...(isLoopbackUrl(url.url) ? { proxy: null } : {}) });
  const dir = configDir(env, home);
  const caps = await readCaps(env, dir);
  const state = await fileState(join(dir, 'mcp-state.json'));
  const sshHome = env.GPU_RENTAL_SSH_HOME?.trim() || home;
  const ssh = new SshConfigWriter({ home: sshHome, origin: new URL(url.url).host, log });
  const loadRentTemplate = async (ref: string): Promise<RentTemplate> => {
    const file = await templateFile(o.cwd, ref);
    const loaded = await loadTemplate(await readFile(file, 'utf8'), {
      workspaceFolder: o.cwd,
      env,
      secret: async (name) => env[`GPU_RENTAL_SECRET_${name}`],
      // onstartFile: inside the workspace only (never a file elsewhere sent as a start script).
      readFile: async (p) => {
        const file = await workspaceFile(o.cwd, p);
        return file ? readFile(file, 'utf8').catch(() => undefined) : undefined;
      },
    });
    if (!loaded.template) {
      const errors = loaded.problems.filter((p) => p.severity === 'error');
      throw new ToolError(
        `Template ${relative(o.cwd, file)} has ${errors.length} problem(s) (first: ${errors[0]?.where}: ${errors[0]?.message}). Nothing was rented.`,
      );
    }
    return {
      template: loaded.template,
      templatePath: relative(o.cwd, file),
      secrets: loaded.secrets,
      ...(loaded.onstart !== undefined ? { onstart: loaded.onstart } : {}),
    };
  };
  const ports: AgentPorts = {
    api: async () => api,
    log,
    clock: realClock,
    state,
    ssh,
    sshAliases: async () => new Map((await ssh.entries()).map((e) => [e.id, e.alias])),
    sshKeys: async () => ({ home: sshHome, preferred: [], howToAdd: NO_KEY_HOW_TO }),
    caps: () => caps,
    guardDefaults: () => DEFAULT_GUARD,
    apiUrl: () => url.url,
    loadTemplate: loadRentTemplate,
    quotes: new QuoteStore(() => Date.now()),
    maxWaitMs: 30 * 60_000,
    // MCP clients give up on a call after about a minute: say where a rent stands well before.
    answerWithinMs: answerWithin(env) * 1000,
  };
  const describe = `${url.url} (key from ${found.source === 'the VAST_API_KEY environment variable' ? 'VAST_API_KEY' : 'the CLI key file'}; caps: ${caps.maxDphTotal !== undefined ? `$${caps.maxDphTotal}/h` : 'no per-hour cap'}, ${caps.monthlyBudget !== undefined ? `$${caps.monthlyBudget}/month` : 'no budget'}; state ${join(dir, 'mcp-state.json')})`;
  return { ports, describe, close: async () => (await import('../api/client')).closeApiTransport() };
}
