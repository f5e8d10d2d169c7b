// Consent for calls by other extensions and scripts. A command argument that skips a
// confirmation of spending or destroying (`skipConfirmation: true`, a create's `confirm: false`,
// `onNotFound`, `onCancel: 'destroy'`, a bid `price`, a key path to register or attach) counts
// only when the user turned on gpuRental.scripting.allowUnattended (user settings only: a
// workspace cannot); otherwise the command asks exactly as it does for a click. No `vscode`.
import type { Logger } from '../api/types';

/** What the consent check needs: the user's setting and the log that says a skip was refused. */
export interface Consent {
  allowUnattended: boolean;
  log: Pick<Logger, 'info'>;
}

/** Whether a caller's request to skip the question `what` is honoured; a refused one is logged. */
export function unattendedAllowed(c: Consent, what: string): boolean {
  if (c.allowUnattended) return true;
  c.log.info(`${what}: the caller asked to skip the confirmation, but gpuRental.scripting.allowUnattended is off: asking as for a click`);
  return false;
}

/** `{ skipConfirmation: true }` in the argument, honoured only with consent. */
export function skipsConfirmation(c: Consent, arg: unknown, what: string): boolean {
  const asked = typeof arg === 'object' && arg !== null && (arg as { skipConfirmation?: unknown }).skipConfirmation === true;
  return asked && unattendedAllowed(c, what);
}

/** The create arguments that answer a money question for the user. */
interface CreateAnswers {
  confirm?: boolean;
  onNotFound?: unknown;
  onCancel?: unknown;
}

/**
 * A create's arguments as they may be honoured: without consent, `confirm: false` (rent without
 * the price confirmation), `onNotFound` (e.g. rent another machine) and `onCancel` (destroy or
 * keep on cancel) are dropped, so the user is asked each question.
 */
export function consentedCreateArgs<T extends CreateAnswers>(c: Consent, args: T): T {
  if (args.confirm !== false && args.onNotFound === undefined && args.onCancel === undefined) return args;
  if (unattendedAllowed(c, 'Rent')) return args;
  const asked: T = { ...args };
  delete asked.onNotFound;
  delete asked.onCancel;
  if (asked.confirm === false) delete asked.confirm;
  return asked;
}
