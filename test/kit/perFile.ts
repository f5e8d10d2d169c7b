// One resource shared by the tests of a file (a simulator, an SSH fixture, a client harness):
// started before the file's tests, closed after them, read through a holder inside a test.
import { after, before, beforeEach } from 'node:test';

export interface PerFileHooks<T> {
  /** Gets the resource as soon as it is started (a top-level before() hook may run at once, so a second hook cannot wait for it). */
  onStarted?: (started: T) => void | Promise<void>;
  /** Runs before each test of the file (e.g. a reset). */
  beforeEach?: (started: T) => void | Promise<void>;
  /** Runs after close() (e.g. closing a shared transport). */
  afterClose?: () => void | Promise<void>;
}

export interface PerFile<T> {
  /** The started resource; reading it outside a test (before the start) throws. */
  readonly current: T;
}

export function perFile<T extends { close(): unknown }>(what: string, start: () => Promise<T>, hooks: PerFileHooks<T> = {}): PerFile<T> {
  let started: T | undefined;
  before(async () => {
    started = await start();
    await hooks.onStarted?.(started);
  });
  after(async () => {
    await started?.close();
    await hooks.afterClose?.();
  });
  if (hooks.beforeEach) {
    const each = hooks.beforeEach;
    beforeEach(async () => {
      if (started) await each(started);
    });
  }
  return {
    get current(): T {
      if (!started) throw new Error(`${what} is not started yet: read it inside a test`);
      return started;
    },
  };
}
