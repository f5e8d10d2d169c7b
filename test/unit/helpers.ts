// Plumbing shared by unit tests of several folders (folder-specific harnesses live next to their tests).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../../src/api/types';

/** A logger that drops every line: for tests that do not look at the log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

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
