// Installs (once, cached in .vscode-test/) and starts code-server 4.100.3 = VS Code 1.100.3,
// the real VS Code that the integration tests and the demo run in on machines without
// internet. Recipe: /work/shared/notes/real-vscode-host.md. Also: headless Chromium helpers.
//
//   node scripts/code-server.mjs --install     install/verify only
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, copyFileSync, chmodSync, mkdtempSync, rmSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { homeEnv } from './test-home.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CODE_SERVER_VERSION = '4.100.3';
export const cacheDir = join(root, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const pkgDir = join(cacheDir, 'node_modules', 'code-server');
export const entry = join(pkgDir, 'out', 'node', 'entry.js');
const marker = join(cacheDir, '.installed');

function sh(cmd, args, cwd, extraEnv = {}) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, npm_config_yes: 'true', ...extraEnv } });
}

function findRg() {
  for (const p of ['/usr/bin/rg', '/usr/local/bin/rg']) if (existsSync(p)) return p;
  throw new Error('ripgrep (rg) is not installed: run `apt-get install -y ripgrep` (VS Code needs it for search)');
}

/**
 * Installs code-server into .vscode-test/ unless the marker says a previous install finished.
 * The install is built in a folder of its own and renamed into place when complete, so two test
 * runs that start at once (two worktrees sharing one cache, a tier and the demo) never build into
 * or delete each other's half-made install: the first to finish wins, the other's copy is dropped.
 */
export function ensureCodeServer({ quiet = false } = {}) {
  if (existsSync(marker) && existsSync(entry)) return entry;
  const say = (m) => quiet || process.stderr.write(`[code-server] ${m}\n`);
  const t0 = Date.now();
  const rg = findRg();
  mkdirSync(dirname(cacheDir), { recursive: true });
  const work = mkdtempSync(`${cacheDir}.partial-`);
  const workPkg = join(work, 'node_modules', 'code-server');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // `--version` writes a default config into $HOME/.config/code-server: never the real home.
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-cs-home-'));
  try {
    say(`installing code-server@${CODE_SERVER_VERSION} into ${cacheDir} (about a minute, once)…`);
    sh(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`], work);
    const vsDir = join(workPkg, 'lib', 'vscode');
    say('installing VS Code server dependencies…');
    sh(npm, ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], vsDir);
    say('building native modules…');
    sh(npm, ['rebuild', 'node-pty', '@parcel/watcher', '@vscode/spdlog', 'native-watchdog', '@vscode/deviceid'], vsDir);
    sh(npm, ['rebuild', 'argon2'], work);
    const rgDest = join(vsDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    mkdirSync(dirname(rgDest), { recursive: true });
    copyFileSync(rg, rgDest);
    chmodSync(rgDest, 0o755);
    const version = execFileSync(process.execPath, [join(workPkg, 'out', 'node', 'entry.js'), '--version'], { encoding: 'utf8', env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share') } });
    if (!version.includes(CODE_SERVER_VERSION)) throw new Error(`unexpected version output: ${version.trim()}`);
    writeFileSync(join(work, '.installed'), version);
    if (existsSync(marker) && existsSync(entry)) {
      say('another run finished installing first; using its copy');
    } else {
      rmSync(cacheDir, { recursive: true, force: true });
      renameSync(work, cacheDir);
      say(`installed in ${Math.round((Date.now() - t0) / 1000)} s: ${version.split('\n').find((l) => l.includes(CODE_SERVER_VERSION))}`);
    }
  } catch (e) {
    const detail = e?.stderr ? String(e.stderr).split('\n').slice(-15).join('\n') : String(e?.message ?? e);
    throw new Error(`installing code-server failed (delete .vscode-test/ and retry; needs the npm registry):\n${detail}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  return entry;
}

/** A free loopback TCP port. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Kills a process group (or process) by id; ignores ones already gone. */
export function killTree(pid, signal = 'SIGTERM') {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
}

async function waitHttp(url, timeoutMs, child) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with code ${child.exitCode} before it was ready`);
    try {
      const r = await fetch(url, { redirect: 'manual' });
      await r.arrayBuffer();
      if (r.status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`code-server did not answer on ${url} within ${timeoutMs} ms`);
}

/**
 * Starts code-server on a free loopback port with fresh user-data and extensions folders and a
 * HOME (and XDG folders) of its own inside its temporary folder: the extension host, its
 * terminals and code-server itself never see the real home (the extension computes ~/.ssh from
 * it). `settings` are written to the fresh user settings.json; `env` is added to its
 * environment (inherited by the extension host). Returns { url, port, pid, dir, home, stop() }.
 */
export async function startCodeServer({ env = {}, settings = {}, logFile, port } = {}) {
  ensureCodeServer();
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-cs-'));
  const userData = join(dir, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'workbench.enableExperiments': false,
        ...settings,
      },
      null,
      2,
    ),
  );
  const args = [
    entry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--user-data-dir', userData,
    '--extensions-dir', join(dir, 'extensions'),
    '--config', join(dir, 'config.yaml'),
  ];
  const out = logFile ?? join(dir, 'code-server.log');
  const { openSync } = await import('node:fs');
  const fd = openSync(out, 'a');
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...homeEnv(home), ...env },
    stdio: ['ignore', fd, fd],
    detached: true, // own process group, so stop() also ends the extension host and helpers
  });
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    killTree(child.pid, 'SIGTERM');
    setTimeout(() => killTree(child.pid, 'SIGKILL'), 1500).unref();
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      /* best effort */
    }
  };
  try {
    await waitHttp(`${url}/healthz`, 30_000, child);
  } catch (e) {
    let tail = '';
    try {
      tail = readFileSync(out, 'utf8').split('\n').slice(-20).join('\n');
    } catch {}
    stop();
    throw new Error(`${e.message}\n${tail}`);
  }
  return { url, port, pid: child.pid, dir, home, logFile: out, child, stop };
}

/** The workbench URL that opens `folder` and (optionally) loads the extension under development and its tests. */
export function workbenchUrl(url, port, { folder, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const q = new URLSearchParams();
  if (folder) q.set('folder', folder);
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  if (payload.length) q.set('payload', JSON.stringify(payload));
  return `${url}/?${q.toString()}`;
}

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Launches headless Chromium (Debian's) through playwright-core.
 * Returns { browser, pid, close() }; close() also kills the process by its id.
 */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: run \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`);
  }
  const { chromium } = await import('playwright-core');
  // Chromium writes ~/.pki and ~/.config/chromium beside its profile: give it a home of its own.
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-chromium-'));
  const server = await chromium.launchServer({
    executablePath: CHROMIUM,
    headless: true,
    env: { ...process.env, ...homeEnv(home) },
    // Our callers clean up on signals themselves; Playwright's handlers would exit the
    // process before code-server and the simulator are stopped.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const pid = server.process().pid;
  const browser = await chromium.connect(server.wsEndpoint());
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
    await Promise.race([server.close().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
    killTree(pid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true, maxRetries: 3 });
  };
  return { browser, pid, close };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--install')) {
    ensureCodeServer();
    process.stdout.write(readFileSync(marker, 'utf8'));
  }
}
