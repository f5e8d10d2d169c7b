// The MCP server's figures (issue #36 item 6): how long `node dist/mcp.js` takes to start and to
// answer list_instances and search_offers over stdio, against the simulator as a process, and the
// official CLI's cold `vastai show instances` on the same machine and simulator, side by side.
//
//   node bench/mcp.mjs            measures and rewrites the "MCP server" section of BENCHMARKS.md
//   VAST_CLI=/path/to/vast.py node bench/mcp.mjs     with the CLI's row (vast.py of github.com/vast-ai/vast-cli;
//                                 python3 with `requests`). Without VAST_CLI: "skipped: set VAST_CLI".
// `npm run bench` runs it too (bench/run.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSimulatorProcess } from '../scripts/sim-process.mjs';
import { median } from './util.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'sim-api-key';
const INSTANCES = 10;
/** Past the list endpoint's 1 s threshold (the simulator enforces the service's, the client paces to it). */
const GAP_MS = 1100;
/** Past the search endpoint's 6 s threshold. */
const SEARCH_GAP_MS = 6100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(url, home) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'dist/mcp.js')],
    cwd: home,
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: home, VAST_API_KEY: KEY, VAST_URL: url, GPU_RENTAL_CONFIG_DIR: join(home, 'config') },
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function timedCall(client, name, args) {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${name} failed: ${r.content?.[0]?.text}`);
  return { ms, text: r.content.map((c) => c.text ?? '').join('\n') };
}

/** The CLI's cold call: a fresh python3 process per call, its GPU-name cache warm (it would fetch it once a day). */
function cliRuns(cli, url, home, runs) {
  mkdirSync(join(home, '.cache/vastai'), { recursive: true });
  writeFileSync(join(home, '.cache/vastai/gpu_names_cache.json'), JSON.stringify({ gpu_names: ['RTX 4090', 'RTX 3090', 'A100 SXM4', 'H100 SXM'] }));
  const times = [];
  for (let i = 0; i < runs; i++) {
    spawnSync('sleep', [String(GAP_MS / 1000)]);
    const t = performance.now();
    const r = spawnSync('python3', [cli, 'show', 'instances', '--api-key', KEY, '--raw'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, VAST_URL: url },
      maxBuffer: 16 * 1024 * 1024,
    });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`vastai show instances failed (${r.status}): ${r.stderr.slice(-500)}`);
    const rows = JSON.parse(r.stdout);
    if (!Array.isArray(rows) || rows.length !== INSTANCES)
      throw new Error(`vastai show instances listed ${Array.isArray(rows) ? rows.length : '?'} instances, not ${INSTANCES}`);
    times.push(ms);
  }
  return times;
}

/** Start times, first and warm call latencies, and the CLI's (when VAST_CLI is set). */
export async function mcpBench({ runs = 5, calls = 3 } = {}) {
  if (!existsSync(join(root, 'dist/mcp.js'))) throw new Error('dist/mcp.js is missing: run node scripts/build.mjs first');
  const sim = await startSimulatorProcess({ args: ['--instances', String(INSTANCES), '--no-ssh'] });
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-mcp-bench-'));
  try {
    const start = [];
    const firstList = [];
    for (let i = 0; i < runs; i++) {
      await sleep(GAP_MS);
      const t = performance.now();
      const client = await startServer(sim.url, home);
      start.push(performance.now() - t);
      const first = await timedCall(client, 'list_instances', {});
      if (!first.text.startsWith(`${INSTANCES} instance(s):`)) throw new Error(`list_instances answered: ${first.text.slice(0, 200)}`);
      firstList.push(first.ms);
      await client.close();
    }
    const client = await startServer(sim.url, home);
    const list = [];
    const search = [];
    for (let i = 0; i < calls; i++) {
      await sleep(SEARCH_GAP_MS);
      list.push((await timedCall(client, 'list_instances', {})).ms);
      search.push((await timedCall(client, 'search_offers', { num_gpus: 1, limit: 10 })).ms);
    }
    await client.close();
    const cliPath = process.env.VAST_CLI ? resolve(process.env.VAST_CLI) : undefined;
    const cli = cliPath ? cliRuns(cliPath, sim.url, home, runs) : undefined;
    const cliSha = cliPath ? createHash('sha256').update(readFileSync(cliPath)).digest('hex').slice(0, 12) : undefined;
    return {
      runs,
      calls,
      start,
      firstList,
      list,
      search,
      cli,
      cliSha,
      instances: INSTANCES,
      at: new Date().toISOString(),
      load: loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
    };
  } finally {
    sim.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const ms = (x) => `${x.toFixed(0)} ms`;
const all = (xs) => xs.map((x) => x.toFixed(0)).join(', ');

/** Rows for the summary table of BENCHMARKS.md. */
export function mcpRows(m) {
  const startMs = median(m.start);
  const listMs = median(m.list);
  const rows = [
    ['MCP server start', `${ms(startMs)} from spawning \`node dist/mcp.js\` to an initialized session (median of ${m.runs}: ${all(m.start)} ms)`, '-', '-'],
    [
      'MCP tool call',
      `list_instances (${m.instances} instances) ${ms(listMs)}, search_offers ${ms(median(m.search))} on a running server (median of ${m.calls}); a fresh server's first list_instances ${ms(median(m.firstList))}`,
      '-',
      '-',
    ],
  ];
  if (!m.cli) rows.push(['MCP vs CLI', "skipped: set VAST_CLI to the official CLI's vast.py", '≥ 10× faster per call', '-']);
  else {
    const cliMs = median(m.cli);
    const ratio = cliMs / listMs;
    rows.push([
      'MCP vs CLI',
      `\`vastai show instances\` cold ${ms(cliMs)} (median of ${m.cli.length}: ${all(m.cli)} ms) vs list_instances ${ms(listMs)}: ×${ratio.toFixed(1)} per call; a fresh server's start and first list ${ms(startMs + median(m.firstList))}, ×${(cliMs / (startMs + median(m.firstList))).toFixed(1)}`,
      '≥ 10× faster per call',
      ratio >= 10 ? 'met' : '**missed**',
    ]);
  }
  return rows;
}

/** The section of BENCHMARKS.md (between "## MCP server" and the next heading). */
export function mcpSection(m) {
  return `## MCP server

${['| What | Measured | Target | |', '|---|---|---|---|', ...mcpRows(m).map((r) => `| ${r.join(' | ')} |`)].join('\n')}

Measured ${m.at}, load average ${m.load} at the end${m.cliSha ? `, vast.py sha256 ${m.cliSha}…` : ''}.
Reproduce: \`VAST_CLI=/path/to/vast.py node bench/mcp.mjs\` (after \`node scripts/build.mjs\`; part of \`npm run bench\`).
The simulator runs as a process (\`dist/sim.js --instances ${m.instances}\`, the service's rate limits). The server is
started ${m.runs} times as an MCP client starts it (the SDK's StdioClientTransport: spawn, initialize) and asked
list_instances once; then one server answers ${m.calls} rounds of list_instances and search_offers, each round ${SEARCH_GAP_MS / 1000} s after
the last (past the service's thresholds, 1 s for the list and 6 s for searches, which the simulator enforces and the
client paces to). At start the server checks the key (GET /users/current/), which also loads its HTTP client. The CLI is vast.py from
github.com/vast-ai/vast-cli run with python3 (\`show instances --raw\` against the same simulator, VAST_URL set), a
fresh process per call with its GPU-name cache already written (it fetches that list once a day), ${GAP_MS / 1000} s apart.
`;
}

/** Replaces (or adds, before "## Method") the MCP section of BENCHMARKS.md. */
function writeSection(m) {
  const p = join(root, 'BENCHMARKS.md');
  const text = readFileSync(p, 'utf8');
  const section = mcpSection(m);
  const at = text.indexOf('\n## MCP server\n');
  let out;
  if (at >= 0) {
    const end = text.indexOf('\n## ', at + 1);
    out = text.slice(0, at + 1) + section + (end >= 0 ? text.slice(end) : '');
  } else {
    const method = text.indexOf('\n## Method\n');
    out = method >= 0 ? `${text.slice(0, method + 1)}${section}${text.slice(method)}` : `${text}\n${section}`;
  }
  writeFileSync(p, out);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = await mcpBench();
  for (const r of mcpRows(m)) process.stdout.write(`${r[0]}: ${r[1]}${r[3] !== '-' ? ` (${r[3]})` : ''}\n`);
  writeSection(m);
  process.stdout.write('wrote the MCP server section of BENCHMARKS.md\n');
}
