// Work that nobody waits for, with its failure handled. The lint tier reports every promise that
// is neither awaited nor given a rejection handler, `void promise` included (no-floating-promises
// with ignoreVoid off, CONTRIBUTING.md "Lint rules"): start such work through background(), so a
// rejection is logged instead of vanishing as an unhandled rejection.
import type { Logger } from '../api/types';
import { describeError } from './describeError';

/** Starts `work` without waiting for it. If it rejects, `log` gets a warning: "`what` failed: …". */
export function background(work: PromiseLike<unknown>, log: Pick<Logger, 'warn'>, what: string): void {
  Promise.resolve(work).then(undefined, (e: unknown) => log.warn(`${what} failed: ${describeError(e)}`));
}

/**
 * Starts `work` on the next turn of the event loop, once activate() has returned: start-up work
 * the first paint does not need. A failure is logged as with background().
 */
export function afterActivation(work: () => unknown, log: Pick<Logger, 'warn'>, what: string): void {
  background(new Promise((resolve) => setImmediate(resolve)).then(work), log, what);
}
