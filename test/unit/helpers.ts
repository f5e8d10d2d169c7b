// Plumbing shared by unit tests of several folders (folder-specific harnesses live next to their tests).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../../src/api/types';

/** A logger that drops every line: for tests that do not look at the log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * Writes `files` (relative path → text) into a fresh temporary folder, runs `fn` with that folder
 * and removes the folder afterwards, whether `fn` passed or threw.
 */
export async function inFixtureTree<T>(prefix: string, files: Record<string, string>, fn: (dir: string) => T | Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
