// `npm run test:electron`: the same suite (out/vscode/index.js) in desktop VS Code through
// @vscode/test-electron, which downloads VS Code (needs internet; not used in CI here,
// where runner.mjs runs it in code-server instead). Same simulator and env vars.
//   VSCODE_TEST_VERSION=1.100.3 npm run test:electron     (default: stable)
import { runTests } from '@vscode/test-electron';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, cpSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { root } from '../../scripts/code-server.mjs';
import { simArgs, startSimulatorProcess } from '../../scripts/sim-process.mjs';
import { parseLines, printRecord, summarize } from './report.mjs';

const work = mkdtempSync(join(tmpdir(), 'gpu-rental-electron-'));
const resultsFile = join(work, 'results.jsonl');
const userData = join(work, 'user-data');
const workspace = join(work, 'workspace');
cpSync(join(root, 'test', 'vscode', 'workspace'), workspace, { recursive: true });
const screenshotDir = join(root, 'screenshots');
mkdirSync(screenshotDir, { recursive: true });

let sim;
let code = 1;
try {
  sim = await startSimulatorProcess({ testControl: true, args: simArgs() });
  process.stdout.write(`simulator: ${sim.url} (test control on)\n`);
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({ 'gpuRental.apiBaseUrl': sim.url, 'gpuRental.scripting.allowUnattended': true, 'workbench.startupEditor': 'none' }),
  );
  const env = {
    GPU_RENTAL_TEST_SIM_URL: sim.url,
    GPU_RENTAL_TEST_RESULTS: resultsFile,
    GPU_RENTAL_TEST_SCREENSHOT_DIR: screenshotDir,
  };
  let rc = 1;
  try {
    rc = await runTests({
      version: process.env.VSCODE_TEST_VERSION || 'stable',
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'out', 'vscode', 'index.js'),
      extensionTestsEnv: env,
      launchArgs: [workspace, '--user-data-dir', userData, '--extensions-dir', join(work, 'extensions'), '--disable-workspace-trust', '--skip-welcome'],
    });
  } catch (e) {
    process.stdout.write(
      `VS Code run failed: ${e?.message ?? e}\n(@vscode/test-electron downloads VS Code: this needs internet; offline, use npm run test:vscode)\n`,
    );
  }
  const recs = existsSync(resultsFile) ? parseLines(readFileSync(resultsFile, 'utf8')) : [];
  const tests = recs.map((r) => printRecord(r)).filter(Boolean);
  const { passed, failed } = summarize(tests);
  code = rc === 0 && failed === 0 && passed > 0 ? 0 : 1;
} catch (e) {
  process.stdout.write(`ERROR: ${e?.stack ?? e}\n`);
} finally {
  sim?.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(code);
