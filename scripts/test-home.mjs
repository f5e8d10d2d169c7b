// Tests never touch the real home. Every tier of `npm test` runs with HOME and the XDG folders in a
// temporary directory (tempHome()), and the suite fingerprints the real ~/.ssh and the VS Code user
// settings before and after (homeFingerprint(), diffFingerprints()): a test that writes there fails
// the run even when it escaped the temporary HOME (e.g. by reading the passwd entry).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';

/** The user's real home: the passwd entry, which a changed HOME does not hide. */
export function realHome() {
  try {
    return userInfo().homedir || process.env.HOME;
  } catch {
    return process.env.HOME;
  }
}

/** The files of the real home the suite must leave byte for byte as they were. */
export function guardedPaths(home = realHome()) {
  const user = (dir) => join(dir, 'User', 'settings.json');
  return [
    join(home, '.ssh'), // the whole tree: config, keys, known_hosts, gpu-rental/
    user(join(home, '.config', 'Code')),
    user(join(home, '.config', 'Code - OSS')),
    user(join(home, '.config', 'Code - Insiders')),
    user(join(home, '.config', 'VSCodium')),
    user(join(home, '.local', 'share', 'code-server')),
    join(home, '.vscode-server', 'data', 'Machine', 'settings.json'),
    join(home, '.config', 'vastai'),
    join(home, '.vast_api_key'),
  ];
}

/** Path → `absent`, `dir <mode>`, `link <target>` or `<mode> <sha256>` for each guarded path and everything under it. */
export function homeFingerprint(paths = guardedPaths()) {
  const out = new Map();
  const visit = (p) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      out.set(p, 'absent');
      return;
    }
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out.set(p, `link ${readlinkSync(p)}`);
    else if (st.isDirectory()) {
      out.set(p, `dir ${mode}`);
      let names = [];
      try {
        names = readdirSync(p).sort();
      } catch {
        out.set(p, `dir ${mode} (unreadable)`);
      }
      for (const n of names) visit(join(p, n));
    } else if (st.isFile()) {
      let h = 'unreadable';
      try {
        h = createHash('sha256').update(readFileSync(p)).digest('hex');
      } catch {}
      out.set(p, `${mode} ${h}`);
    } else out.set(p, `special ${mode}`);
  };
  for (const p of paths) visit(p);
  return out;
}

/** Human-readable differences between two fingerprints (empty when identical). */
export function diffFingerprints(before, after) {
  const lines = [];
  for (const p of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(p) ?? 'absent';
    const b = after.get(p) ?? 'absent';
    if (a === b) continue;
    const what = a === 'absent' ? 'created' : b === 'absent' ? 'deleted' : 'changed';
    lines.push(`${what}: ${p}`);
  }
  return lines.sort();
}

/**
 * The environment that makes `dir` the home of a process: HOME, the XDG base folders (made) and
 * GPU_RENTAL_TEST_HOME. Downloads (the one-time code-server install) keep the real npm cache.
 */
export function homeEnv(dir) {
  const env = {
    HOME: dir,
    USERPROFILE: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    XDG_STATE_HOME: join(dir, '.local', 'state'),
    GPU_RENTAL_TEST_HOME: dir,
  };
  for (const k of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) mkdirSync(env[k], { recursive: true, mode: 0o700 });
  if (!process.env.npm_config_cache) env.npm_config_cache = join(realHome(), '.npm');
  return env;
}

/** A temporary home: { dir, env, cleanup() }; pass `env` to every process a test starts. */
export function tempHome(prefix = 'gpu-rental-home-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, env: homeEnv(dir), cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }) };
}

/** True when this process runs under a temporary home made by tempHome() (HOME is not the real one). */
export function inTempHome(env = process.env) {
  return Boolean(env.GPU_RENTAL_TEST_HOME) && env.HOME === env.GPU_RENTAL_TEST_HOME && relative(realHome(), env.HOME) !== '';
}

// `node scripts/test-home.mjs <command> [args…]`: runs one tier (e.g. `npm run test:unit`) the way
// `npm test` does: under a temporary home, failing if the real one changed meanwhile.
if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href && process.argv.length > 2) {
  const { spawnSync } = await import('node:child_process');
  const before = homeFingerprint();
  const home = tempHome();
  const r = spawnSync(process.argv[2], process.argv.slice(3), { stdio: 'inherit', env: { ...process.env, ...home.env } });
  home.cleanup();
  const changed = diffFingerprints(before, homeFingerprint());
  for (const line of changed) process.stderr.write(`the test run changed the real home: ${line}\n`);
  process.exit(changed.length ? 1 : (r.status ?? 1));
}
