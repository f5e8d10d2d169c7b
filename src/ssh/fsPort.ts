// File-system access for the SSH layer, injectable so unit tests run on a temporary HOME
// (and could run on a fake). Atomic writes and the cross-window lock live here.
import * as nodeFs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, basename, join } from 'node:path';
import * as l10n from '@vscode/l10n';

export interface FileStat {
  isSymbolicLink(): boolean;
  isFile(): boolean;
  mode: number;
  mtimeMs: number;
}

/** The subset of node:fs/promises the SSH layer uses. */
export interface FsPort {
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: Buffer | string, opts: { mode?: number; flag?: string }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  mkdir(path: string, opts: { recursive: true; mode?: number }): Promise<unknown>;
  chmod(path: string, mode: number): Promise<void>;
  lstat(path: string): Promise<FileStat>;
  stat(path: string): Promise<FileStat>;
  unlink(path: string): Promise<void>;
}

export const nodeFsPort: FsPort = nodeFs as unknown as FsPort;

export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** Reads a file, or undefined when it does not exist. */
export async function readIfExists(fs: FsPort, path: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(path);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** Creates a directory (and parents) with mode 0700; tightens it if it already exists. */
export async function ensurePrivateDir(fs: FsPort, dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') await fs.chmod(dir, 0o700);
}

/**
 * Replaces `path` atomically: a temp file in the same directory, then rename, so a reader
 * (ssh, another window) sees either the old or the new content, never half of it.
 */
export async function writeAtomic(fs: FsPort, path: string, data: Buffer | string, mode = 0o600, beforeRename?: () => Promise<void>): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, data, { mode, flag: 'wx' });
    if (process.platform !== 'win32') await fs.chmod(tmp, mode); // umask may have narrowed it
    // Last check (lock still ours, file unchanged since it was read) as close to the rename as possible.
    await beforeRename?.();
    await fs.rename(tmp, path);
  } catch (e) {
    await fs.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock file older than this (ms) is left over from a crashed window and is taken over. */
  staleMs?: number;
}

/**
 * Thrown when a write must not happen after all: the lock was taken over (the holder was
 * slower than the stale time) or another program changed the file since it was read.
 * Callers re-read and try again.
 */
export class ConcurrentChangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConcurrentChangeError';
  }
}

/** What a lock holder can ask while it holds the lock. */
export interface HeldLock {
  /** Throws ConcurrentChangeError when the lock file no longer carries this holder's token. */
  check(): Promise<void>;
}

export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string) {
    super(
      l10n.t('Another VS Code window is still updating the GPU Rental SSH config (lock {0}). Try again; if this persists, delete that lock file.', lockPath),
    );
    this.name = 'LockTimeoutError';
  }
}

/**
 * Runs `fn` while holding `lockPath` (created with O_EXCL, carrying a unique token), so two
 * windows updating the same file re-read, merge and write one after the other instead of
 * losing each other's entries. A lock older than `staleMs`, or dated in the future (a clock
 * that jumped, a file copied from elsewhere), is left over and taken over; a holder checks
 * (HeldLock.check) that the lock is still its own just before it renames its write into place.
 */
export async function withFileLock<T>(fs: FsPort, lockPath: string, fn: (lock: HeldLock) => Promise<T>, o: LockOptions = {}): Promise<T> {
  const timeoutMs = o.timeoutMs ?? 5000;
  const staleMs = o.staleMs ?? 15000;
  const deadline = Date.now() + timeoutMs;
  const token = `${process.pid} ${Date.now()} ${randomBytes(12).toString('hex')}\n`;
  let delay = 5;
  for (;;) {
    try {
      await fs.writeFile(lockPath, token, { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if (errCode(e) !== 'EEXIST') throw e;
    }
    try {
      const st = await fs.stat(lockPath);
      const age = Date.now() - st.mtimeMs;
      if (age > staleMs || age < -staleMs) {
        // Move it aside first: rename is atomic, so only one contender removes the stale lock.
        const aside = `${lockPath}.stale.${process.pid}.${randomBytes(3).toString('hex')}`;
        await fs.rename(lockPath, aside);
        await fs.unlink(aside).catch(() => undefined);
        continue;
      }
    } catch (e) {
      if (errCode(e) === 'ENOENT') continue; // released meanwhile
      throw e;
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(lockPath);
    await new Promise((r) => setTimeout(r, delay + Math.floor(Math.random() * delay)));
    delay = Math.min(delay * 2, 100);
  }
  const held: HeldLock = {
    check: async () => {
      const now = await readIfExists(fs, lockPath);
      if (now?.toString('utf8') !== token)
        throw new ConcurrentChangeError(l10n.t('the lock {0} was taken over by another window while this one was still writing', lockPath));
    },
  };
  try {
    return await fn(held);
  } finally {
    // Only our own lock is removed: a lock taken over belongs to its new holder.
    if ((await readIfExists(fs, lockPath).catch(() => undefined))?.toString('utf8') === token) await fs.unlink(lockPath).catch(() => undefined);
  }
}
