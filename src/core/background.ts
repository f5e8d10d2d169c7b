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
