// Temporary folders and HOMEs for every tier: created fresh, removed afterwards whether the test
// passed or threw. Tests never touch the real HOME.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Runs `fn` with a fresh temporary folder and removes the folder afterwards, whether `fn` passed or threw. */
export async function inTempDir<T>(prefix: string, fn: (dir: string) => T | Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** inTempDir with `files` (relative path → text) written into the folder first. */
export function inFixtureTree<T>(prefix: string, files: Record<string, string>, fn: (dir: string) => T | Promise<T>): Promise<T> {
  return inTempDir(prefix, (dir) => {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    return fn(dir);
  });
}

/** A temporary HOME (a folder named `name` inside a fresh temporary folder, with a private ~/.ssh when `ssh`), removed afterwards. */
export function inTempHome<T>(
  prefix: string,
  fn: (home: string) => T | Promise<T>,
  { name = 'home', ssh = false }: { name?: string; ssh?: boolean } = {},
): Promise<T> {
  return inTempDir(prefix, (base) => {
    const home = join(base, name);
    mkdirSync(ssh ? join(home, '.ssh') : home, { recursive: true, mode: 0o700 });
    return fn(home);
  });
}
