// `npm run demo`: the extension against the local simulator, in a throwaway VS Code profile,
// on a temp copy of demo-workspace/ (the repo is never touched). No account, no internet.
// The extension is the packaged .vsix (`npm run package`), installed with --install-extension as a
// user installs it, so the window is an ordinary one (no "[Extension Development Host]").
//   npm run demo                          desktop `code` if on PATH, else code-server (prints URL)
//   npm run demo -- --web                 always code-server
//   npm run demo -- --screenshot out.png  code-server + headless Chromium: open the sidebar,
//                                         wait for instance/offer rows, save a PNG, exit
//   npm run demo -- --vsix file.vsix      use that package instead of making one (npm test passes the
//                                         .vsix its package tier made)
// Ctrl-C stops everything it started.
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { root, startCodeServer, launchChromium, workbenchUrl, killTree, packageVsix, runCleanups } from './code-server.mjs';
import { DEMO_KEY, DEMO_SIM_ARGS, startSimulatorProcess } from './sim-process.mjs';
import { openViewContainer, waitForRows } from './workbench-ui.mjs';
import { homeEnv } from './test-home.mjs';

const argv = process.argv.slice(2);
const shotIdx = argv.indexOf('--screenshot');
const screenshot = shotIdx >= 0 ? resolve(argv[shotIdx + 1] ?? 'screenshots/demo.png') : undefined;
const web = argv.includes('--web') || !!screenshot;
const vsixIdx = argv.indexOf('--vsix');
const givenVsix = vsixIdx >= 0 ? resolve(argv[vsixIdx + 1] ?? '') : undefined;
const cleanups = [];
const cleanup = () => runCleanups(cleanups);
let exiting = false;
async function exit(code) {
  if (exiting) return;
  exiting = true;
  await cleanup();
  process.exit(code);
}
process.on('SIGINT', () => {
  process.stdout.write('\nstopping the demo…\n');
  void exit(0);
});
process.on('SIGTERM', () => void exit(0));

function hasCode() {
  return spawnSync('sh', ['-c', 'command -v code'], { stdio: 'ignore' }).status === 0;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'gpu-rental-demo-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  if (!givenVsix) process.stdout.write('building and packaging the extension (npm run package)…\n');
  // vsce's vscode:prepublish builds dist/, the simulator included; a given .vsix comes with dist/ built.
  const vsix = givenVsix ?? packageVsix(join(work, 'gpu-rental.vsix'));
  // The demo check is a test: the simulator, code-server and Chromium it starts get a temporary home.
  if (screenshot) {
    mkdirSync(join(work, 'home'));
    Object.assign(process.env, homeEnv(join(work, 'home')));
  }
  const workspace = join(work, 'demo-workspace');
  cpSync(join(root, 'demo-workspace'), workspace, { recursive: true });

  // --pending-price-increase: the first seeded instance's host has raised its price (Accept / Reject).
  const sim = await startSimulatorProcess({ args: ['--instances', '2', '--pending-price-increase', ...DEMO_SIM_ARGS] });
  cleanups.push(() => sim.stop());
  const settings = { 'gpuRental.apiBaseUrl': sim.url };
  // The demo's SSH entries go under `work` (never ~/.ssh), which the clean-up removes even if VS Code is killed.
  const env = { GPU_RENTAL_DEMO_API_KEY: DEMO_KEY, GPU_RENTAL_DEMO_DIR: join(work, 'ssh') };
  process.stdout.write(`simulator: ${sim.url}\n`);

  if (!web && hasCode()) {
    const userData = join(work, 'user-data');
    mkdirSync(join(userData, 'User'), { recursive: true });
    writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ ...settings, 'workbench.startupEditor': 'readme' }, null, 2));
    const profile = [`--user-data-dir=${userData}`, `--extensions-dir=${join(work, 'extensions')}`];
    execFileSync('code', [...profile, '--install-extension', vsix], { stdio: 'inherit' });
    process.stdout.write('opening VS Code (close its window or press Ctrl-C here to stop the demo)…\n');
    const child = spawn('code', ['--new-window', '--wait', ...profile, workspace], { stdio: 'inherit', env: { ...process.env, ...env }, detached: true });
    cleanups.push(() => killTree(child.pid));
    await new Promise((r) => child.on('exit', r));
    return 0;
  }

  const cs = await startCodeServer({ env, vsix, settings: { ...settings, 'workbench.startupEditor': 'readme' } });
  cleanups.push(() => cs.stop());
  const url = workbenchUrl(cs.url, cs.port, { folder: workspace });

  if (!screenshot) {
    process.stdout.write(`\nVS Code (code-server) is serving the demo on loopback — open:\n\n  ${url}\n\nPress Ctrl-C to stop.\n`);
    await new Promise(() => {});
  }

  const chrome = await launchChromium();
  cleanups.push(() => chrome.close());
  const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await openViewContainer(page, 'GPU Rental');
  const counts = await waitForRows(page, ['Instances', 'Offers'], { min: 1, timeoutMs: 45_000 });
  const rows = Math.min(...Object.values(counts));
  // The demo workspace's README opens as a preview (workbench.startupEditor): let it render, as a user would see it.
  const preview = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await preview
    .getByText('GPU Rental demo workspace')
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => process.stdout.write('(the README preview had not rendered after 15 s)\n'));
  await page.waitForTimeout(500);
  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot });
  process.stdout.write(`screenshot: ${screenshot} (rows: ${JSON.stringify(counts)})\n`);
  if (rows < 1) {
    process.stdout.write('demo check FAILED: the Instances or Offers view showed no rows for the demo key\n');
    return 1;
  }
  // Issue #23: the demo is the extension as installed, in an ordinary window, not a development host.
  const title = await page.title();
  process.stdout.write(`window title: ${title}\n`);
  if (/Extension Development Host/i.test(title)) {
    process.stdout.write('demo check FAILED: the window is titled as an Extension Development Host\n');
    return 1;
  }
  process.stdout.write('demo check passed\n');
  return 0;
}

main().then(
  (code) => exit(code),
  (e) => {
    process.stdout.write(`demo failed: ${e?.stack ?? e}\n`);
    void exit(1);
  },
);
