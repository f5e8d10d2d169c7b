// The .vsix smoke tier: the packaged extension as users get it, in a chosen code-server (= VS Code)
// version. `npm run package`'s .vsix is installed with `--install-extension` into fresh user-data and
// extensions folders under a temporary HOME (no extensionDevelopmentPath), the workspace opens with
// workspace trust ON (so in Restricted Mode first), and headless Chromium drives the real workbench
// like a user: activation, demo mode against the simulator, Restricted Mode's limited-mode text, trust
// through the UI, a query search, rent from a template until the row is running, the SSH entry on
// disk, a terminal that runs a command inside the instance, the idle guard's row and tooltip, and
// Destroy through its confirmation. Each step is a test; screenshots go to
// screenshots/vsix-<version>-<step>.png; the last line is `N passed, N failed`.
//
//   npm run test:vsix -- --version 4.139.1     (builds and packages first; default: the VS Code tier's version)
//   node test/vsix/smoke.mjs --version 4.90.3 --vsix path/to/gpu-rental.vsix      (a .vsix already built)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import {
  root,
  startCodeServer,
  launchChromium,
  workbenchUrl,
  CODE_SERVER_VERSION,
  ensureCodeServer,
  packageVsix,
  runCleanups,
} from '../../scripts/code-server.mjs';
import { DEMO_KEY, DEMO_SIM_ARGS, startSimulatorProcess } from '../../scripts/sim-process.mjs';
import { contextMenu, hoverText, openViewContainer, pane, pickQuickItem, runCommand, terminalText, toast, waitForRows } from '../../scripts/workbench-ui.mjs';
import { inTempHome, tempHome } from '../../scripts/test-home.mjs';
import { printTest, summarize } from '../vscode/report.mjs';

const argv = process.argv.slice(2);
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const version = opt('--version') ?? CODE_SERVER_VERSION;
const OVERALL_MS = Number(process.env.GPU_RENTAL_TEST_TIMEOUT_S || 420) * 1000;
const screenshotDir = join(root, 'screenshots');
const TEMPLATE = 'PyTorch on one RTX 4090'; // demo-workspace/.gpu/pytorch-4090.json
const MARKER = 'vsix-smoke-marker';

const cleanups = [];
let finished = false;
async function exit(code, message) {
  if (finished) return;
  finished = true;
  if (message) process.stdout.write(`\nERROR: ${message}\n`);
  await runCleanups(cleanups);
  process.exit(code);
}
process.on('SIGINT', () => void exit(130, 'interrupted'));
process.on('SIGTERM', () => void exit(143, 'terminated'));
setTimeout(() => void exit(1, `timed out after ${OVERALL_MS / 1000} s`), OVERALL_MS).unref();

/** The .vsix to install: --vsix, else `npm run package` into `dir`. */
function vsixFile(dir) {
  const given = opt('--vsix');
  if (given) return resolve(given);
  process.stdout.write('packaging the .vsix (npm run package)…\n');
  return packageVsix(join(dir, 'gpu-rental.vsix'));
}

const s = {}; // what the steps learn: page, cs, sim, instance id, row…

async function shot(step) {
  mkdirSync(screenshotDir, { recursive: true });
  await s.page.mouse.move(1300, 880); // no stray hover
  await s.page.waitForTimeout(300);
  await s.page.screenshot({ path: join(screenshotDir, `vsix-${version}-${step}.png`) });
}

async function simGet(path) {
  const r = await fetch(`${s.sim.url}/_sim/${path}`);
  if (!r.ok) throw new Error(`simulator control ${path}: ${r.status}`);
  return r.json();
}

/** Polls `fn` until it returns a truthy value; throws `what` after `ms`. */
async function until(what, fn, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} (waited ${ms / 1000} s)`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const rentedRow = () => s.page.locator('.sidebar .monaco-list-row', { hasText: /pytorch-/ }).first();
const restrictedIndicator = () => s.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first();

const steps = [
  [
    'the folder opens in Restricted Mode (a trust prompt, if any, answered No)',
    async () => {
      // VS Code 1.90–1.100 ask at once in a dialog; 1.139 shows only the status bar item and banner.
      const no = s.page.locator('.monaco-dialog-box .monaco-button', { hasText: /No, I don.t trust/ }).first();
      const ready = s.page.locator('.activitybar .action-item [aria-label^="GPU Rental"]').first();
      let quietSince;
      const answered = await until(
        'a trust prompt or the Restricted Mode status bar item',
        async () => {
          if (await no.isVisible()) return 'dialog';
          if (!(await restrictedIndicator().isVisible()) || !(await ready.isVisible())) return undefined;
          quietSince ??= Date.now();
          return Date.now() - quietSince > 4000 ? 'status bar only' : undefined; // the workbench is up and no dialog came
        },
        45_000,
      );
      if (answered === 'dialog') {
        await shot('trust-prompt');
        await no.click();
      }
      await restrictedIndicator().waitFor({ state: 'visible', timeout: 20_000 });
      await shot('restricted');
      process.stdout.write(`      Restricted Mode shown by: ${answered}\n`);
    },
  ],
  [
    'activation: the GPU Rental views render, in demo mode',
    async () => {
      await openViewContainer(s.page, 'GPU Rental');
      const counts = await waitForRows(s.page, ['Instances', 'Offers'], { min: 1, timeoutMs: 60_000 });
      const empty = Object.entries(counts).filter(([, n]) => n < 1);
      await shot('activated');
      if (empty.length) throw new Error(`no rows in ${empty.map(([v]) => v).join(' and ')}`);
      const demo = s.page.locator('.sidebar', { hasText: 'Demo mode: simulated account' }).first();
      await demo.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {
        throw new Error('the views do not say "Demo mode: simulated account…"');
      });
    },
  ],
  [
    'Restricted Mode: Create from Template says why no template is used',
    async () => {
      await runCommand(s.page, 'GPU Rental: Create Instance from Template');
      const t = toast(s.page, 'Templates are not read in Restricted Mode');
      await t.waitFor({ state: 'visible', timeout: 15_000 });
      await shot('restricted-templates');
      if (await s.page.locator('.quick-input-widget .monaco-list-row', { hasText: TEMPLATE }).isVisible())
        throw new Error('templates were offered in Restricted Mode');
      s.trustButton = t.locator('.monaco-button', { hasText: 'Manage Workspace Trust' }).first();
    },
  ],
  [
    'trust the folder through the UI (Manage Workspace Trust → Trust)',
    async () => {
      await s.trustButton.click();
      const trust = s.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust( Folder)?$/ }).first();
      await trust.waitFor({ state: 'visible', timeout: 15_000 });
      await shot('trust-editor');
      await trust.click();
      await restrictedIndicator().waitFor({ state: 'hidden', timeout: 15_000 });
      await s.page.keyboard.press('Escape');
      // Newer VS Code (1.139) opens the trust editor as a modal over the workbench: close it by its X.
      const modal = s.page.locator('.modal-editor-part').first();
      if (await modal.isVisible()) await modal.locator('.modal-editor-header .codicon-close, .modal-editor-header [aria-label^="Close"]').last().click();
      await modal.waitFor({ state: 'hidden', timeout: 5_000 });
      await openViewContainer(s.page, 'GPU Rental');
      await shot('trusted');
    },
  ],
  [
    'search offers (query)',
    async () => {
      await runCommand(s.page, 'GPU Rental: Search Offers with a Query…');
      const input = s.page.locator('.quick-input-widget input.input').first();
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('gpu_name=RTX_4090 num_gpus=1');
      await s.page.keyboard.press('Enter');
      const rows = pane(s.page, 'Offers').locator('.monaco-list-row');
      const texts = await until('the Offers view shows RTX 4090 offers only', async () => {
        const all = await rows.allInnerTexts();
        return all.length && all.every((t) => t.includes('4090')) ? all : undefined;
      });
      await shot('search');
      process.stdout.write(`      ${texts.length} offer rows, first: ${texts[0].replace(/\s+/g, ' ').slice(0, 80)}\n`);
    },
  ],
  [
    'rent from a template: confirmed, the row reaches running',
    async () => {
      await runCommand(s.page, 'GPU Rental: Create Instance from Template');
      await pickQuickItem(s.page, TEMPLATE);
      // The flow may ask for an offer (a quick pick) before its price confirmation (a modal dialog).
      const rent = s.page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Rent$/ }).first();
      await until('the price confirmation (Rent) appears', async () => {
        if (await rent.isVisible()) return true;
        const offers = s.page.locator('.quick-input-widget .quick-input-title', { hasText: 'matching offers' });
        if (await offers.isVisible()) await s.page.keyboard.press('Enter');
        return false;
      });
      await shot('rent-confirm');
      await rent.click();
      await toast(s.page, 'is running').waitFor({ state: 'visible', timeout: 120_000 });
      // A running row has no state word; its icon says it (vm-running; loading~spin while it boots).
      await until('the new row shows the running icon', async () => (await rentedRow().locator('.codicon-vm-running').count()) > 0, 30_000);
      await shot('running');
    },
  ],
  [
    "the SSH host entry is in the demo HOME's config file",
    async () => {
      const base = join(s.work, 'demo-ssh');
      const homes = existsSync(base) ? readdirSync(base).filter((n) => n.startsWith('gpu-rental-demo-ssh-')) : [];
      const file = homes.map((h) => join(base, h, '.ssh', 'gpu-rental', 'config')).find(existsSync);
      if (!file) throw new Error(`no gpu-rental/config under ${base}`);
      const text = readFileSync(file, 'utf8');
      const m = /^Host (\S*pytorch-\S*-(\d+))$/m.exec(text);
      if (!m) throw new Error(`no pytorch-…-<id> Host entry in ${file}:\n${text.slice(0, 600)}`);
      if (!/^\s*HostName 127\.0\.0\.1$/m.test(text) || !/^\s*Port \d+$/m.test(text))
        throw new Error(`the entry has no loopback HostName/Port:\n${text.slice(0, 600)}`);
      s.id = Number(m[2]);
      if (existsSync(join(s.cs.home, '.ssh'))) throw new Error(`the demo wrote into the HOME's ~/.ssh (${join(s.cs.home, '.ssh')})`);
      process.stdout.write(`      ${file}: Host ${m[1]}\n`);
    },
  ],
  [
    "a terminal reaches the instance's shell (a command there writes a file in the instance)",
    async () => {
      await contextMenu(s.page, rentedRow(), 'Open Terminal on Instance');
      const term = s.page.locator('.terminal-wrapper .xterm').first();
      await term.waitFor({ state: 'visible', timeout: 20_000 });
      await until("the instance's shell prompt", async () => /[$#]$/m.test((await terminalText(s.page)).trimEnd()), 30_000);
      await term.click();
      // Arithmetic the shell must do: the file says 42 only if a shell ran it.
      await s.page.keyboard.type(`echo "$CONTAINER_ID:$((6*7))" > ${MARKER}; cat ${MARKER}`);
      await s.page.keyboard.press('Enter');
      const { home } = await simGet(`instances/${s.id}/home`);
      const content = await until(`${MARKER} appears in instance ${s.id}'s folder`, async () => readFileSync(join(home, MARKER), 'utf8'), 15_000);
      if (content.trim() !== `${s.id}:42`) throw new Error(`${MARKER} says "${content.trim()}", expected "${s.id}:42"`);
      await until("the terminal shows the file's content", async () => (await terminalText(s.page)).includes(`${s.id}:42`), 10_000);
      await shot('terminal');
    },
  ],
  [
    "the idle guard's row and tooltip",
    async () => {
      await openViewContainer(s.page, 'GPU Rental');
      const row = rentedRow();
      await until('the row shows the guard', async () => /guard: /.test(await row.innerText()), 30_000);
      const tip = await hoverText(s.page, row);
      await s.page.waitForTimeout(300);
      await s.page.screenshot({ path: join(screenshotDir, `vsix-${version}-guard.png`) });
      if (!/Idle guard: /.test(tip)) throw new Error(`the tooltip has no "Idle guard:" line: "${tip.slice(0, 300)}"`);
      process.stdout.write(`      row: ${(await row.innerText()).replace(/\s+/g, ' ').slice(0, 120)}\n`);
    },
  ],
  [
    'destroy: the confirmation, then the row goes',
    async () => {
      await s.page.mouse.move(1300, 880);
      await contextMenu(s.page, rentedRow(), 'Destroy Instance');
      await s.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Destroy "' }).first().waitFor({ state: 'visible', timeout: 15_000 });
      await shot('destroy-confirm');
      await pickQuickItem(s.page, 'Destroy');
      await rentedRow().waitFor({ state: 'detached', timeout: 30_000 });
      // The service's own list (with the demo key) no longer has it (a 429 of its rate limit is asked again).
      await until(
        `the service stops listing instance ${s.id}`,
        async () => {
          const r = await fetch(`${s.sim.url}/api/v1/instances/`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });
          const { instances } = r.ok ? await r.json() : {};
          return Array.isArray(instances) && !instances.some((i) => i.id === s.id);
        },
        15_000,
      );
      await shot('destroyed');
    },
  ],
  [
    'the MCP server starts from the installed extension (node …/dist/mcp.js): tools listed, a search answered over stdio',
    async () => {
      const [dir] = readdirSync(join(s.cs.dir, 'extensions')).filter((n) => n.startsWith('gpurental.gpu-rental-'));
      const server = join(s.cs.dir, 'extensions', dir, 'dist', 'mcp.js');
      if (!existsSync(server)) throw new Error(`the installed extension has no dist/mcp.js (${server})`);
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [server],
        cwd: s.work,
        stderr: 'pipe',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? s.work,
          VAST_API_KEY: DEMO_KEY,
          VAST_URL: s.sim.url,
          GPU_RENTAL_CONFIG_DIR: join(s.work, 'mcp-config'),
        },
      });
      let stderr = '';
      transport.stderr?.on('data', (d) => (stderr += d));
      const client = new Client({ name: 'vsix-smoke', version: '1.0.0' });
      const t = Date.now();
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        if (!tools.some((x) => x.name === 'rent') || !tools.some((x) => x.name === 'search_offers'))
          throw new Error(`tools: ${tools.map((x) => x.name).join(', ')}`);
        const r = await client.callTool({ name: 'search_offers', arguments: { limit: 2 } });
        const text = r.content.map((c) => c.text ?? '').join('\n');
        if (r.isError || !/offer \d+: /.test(text)) throw new Error(`search_offers answered: ${text.slice(0, 300)}`);
        if (stderr.includes(DEMO_KEY)) throw new Error('the key reached the server log');
        process.stdout.write(`      ${tools.length} tools, started and searched in ${Date.now() - t} ms\n`);
      } finally {
        await client.close();
      }
    },
  ],
];

async function main() {
  const t0 = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'gpu-rental-vsix-smoke-'));
  s.work = work;
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  if (!inTempHome()) {
    const home = tempHome();
    Object.assign(process.env, home.env);
    cleanups.push(() => home.cleanup());
  }
  const { node, marker } = ensureCodeServer({ version });
  const about = `code-server ${version} = VS Code ${/Code (\d+\.\d+\.\d+)/.exec(readFileSync(marker, 'utf8'))?.[1] ?? '?'}, Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}`;
  const vsix = vsixFile(work);
  const workspace = join(work, 'demo-workspace');
  cpSync(join(root, 'demo-workspace'), workspace, { recursive: true });

  s.sim = await startSimulatorProcess({ testControl: true, args: [...DEMO_SIM_ARGS, '--instances', '2', '--boot-seconds', '8'] });
  cleanups.push(() => s.sim.stop());
  const tInstall = Date.now();
  s.cs = await startCodeServer({
    version,
    vsix,
    workspaceTrust: true,
    // Demo mode as `npm run demo` has it: the loopback-only key; SSH entries in a HOME of the demo's own.
    env: { GPU_RENTAL_DEMO_API_KEY: DEMO_KEY, GPU_RENTAL_DEMO_DIR: join(work, 'demo-ssh') },
    settings: { 'gpuRental.apiBaseUrl': s.sim.url, 'terminal.integrated.gpuAcceleration': 'off' },
    logFile: join(work, 'code-server.log'),
  });
  cleanups.push(() => s.cs.stop());
  const installed = readdirSync(join(s.cs.dir, 'extensions')).filter((n) => n.startsWith('gpurental.gpu-rental-'));
  process.stdout.write(`\n${about}: installed ${installed.join(', ') || 'NOTHING'} from ${vsix} (${Date.now() - tInstall} ms, with start-up)\n`);
  if (!installed.length) throw new Error('--install-extension left no gpurental.gpu-rental-* in the extensions folder');

  const chrome = await launchChromium();
  cleanups.push(() => chrome.close());
  s.page = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 } });
  // No extension development path, no test payload: the workbench a user opens.
  await s.page.goto(workbenchUrl(s.cs.url, s.cs.port, { folder: workspace }), { waitUntil: 'domcontentloaded' });

  const results = [];
  for (const [name, fn] of steps) {
    const t = Date.now();
    if (results.some((r) => r.status === 'failed')) {
      const rec = { name, status: 'failed', durationMs: 0, error: 'not run: an earlier step failed' };
      results.push(rec);
      printTest(rec);
      continue;
    }
    try {
      await fn();
      results.push({ name, status: 'passed', durationMs: Date.now() - t });
    } catch (e) {
      results.push({
        name,
        status: 'failed',
        durationMs: Date.now() - t,
        error: String(e?.message ?? e)
          .split('\n')
          .slice(0, 6)
          .join('\n'),
      });
      await s.page.screenshot({ path: join(screenshotDir, `vsix-${version}-failed.png`) }).catch(() => {});
      const log = readFileSync(s.cs.logFile, 'utf8').split('\n').slice(-8).join('\n');
      results.at(-1).error += `\ncode-server log tail:\n${log}`;
    }
    printTest(results.at(-1));
  }
  process.stdout.write(`\nvsix smoke on ${about}: ${Math.round((Date.now() - t0) / 1000)} s\n`);
  const { failed } = summarize(results);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => exit(code),
  (e) => exit(1, e?.stack ?? String(e)),
);
