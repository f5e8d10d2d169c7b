// One owner for a command's failure notice (VS Code's guideline: one notification, with the
// buttons that fix it). A command that cannot do what was asked throws: a CommandFailure with
// its own sentence and fix buttons, or any other error (an ApiError, …), worded by describeError
// with the buttons its kind needs (not signed in: Set API Key / Try Demo Mode; a rejected key or
// expired 2FA session: Set API Key / Sign In with 2FA). registerCommands (src/app/commandTable.ts)
// catches it and calls reportCommandError, the one place that shows it; scripts that run the
// command get `undefined`. A command whose failed result scripts still need (the create flow's
// outcome) returns it marked with failedWith(result, failure): the reporter shows the failure and
// the script gets the result.
import * as vscode from 'vscode';
import type { Services } from './services';
import { describeError } from '../describeError';
import { notSignedIn as notSignedInText, isApiError } from '../../api/errors';
import { background } from '../background';

/** A button of a failure notice and what it does. */
export interface FixAction {
  readonly title: string;
  run(): unknown;
}

/** What a command throws when it cannot go on: the sentence for the user and the buttons that fix it. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly fixes: readonly FixAction[] = [],
  ) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/**
 * Whether `e` is a CommandFailure. This module is in several bundles (dist/*.js), each with its own
 * class, so the test is by name and shape, not instanceof (like isApiError).
 */
export function isCommandFailure(e: unknown): e is CommandFailure {
  return e instanceof Error && e.name === 'CommandFailure' && Array.isArray((e as { fixes?: unknown }).fixes);
}

/** A fix button that runs a command. */
export function fixByCommand(title: string, command: string, ...args: unknown[]): FixAction {
  return { title, run: () => vscode.commands.executeCommand(command, ...args) };
}

export const SET_API_KEY = (): FixAction => fixByCommand(vscode.l10n.t('Set API Key'), 'gpuRental.setApiKey');
export const TRY_DEMO_MODE = (): FixAction => fixByCommand(vscode.l10n.t('Try Demo Mode'), 'gpuRental.tryDemoMode');
export const SIGN_IN_2FA = (): FixAction => fixByCommand(vscode.l10n.t('Sign In with 2FA'), 'gpuRental.tfa.signIn');
export const OPEN_FOLDER = (): FixAction => fixByCommand(vscode.l10n.t('Open Folder…'), 'workbench.action.files.openFolder');
export const SHOW_OUTPUT_LOG = (): FixAction => fixByCommand(vscode.l10n.t('Show Output Log'), 'gpuRental.showLog');

/** The not-signed-in failure (the one wording, api/errors.ts), with the buttons that sign in. */
export function notSignedIn(): CommandFailure {
  return new CommandFailure(notSignedInText(), [SET_API_KEY(), TRY_DEMO_MODE()]);
}

/** The buttons that fix an error of this kind, for errors that are not a CommandFailure. */
function fixesFor(e: unknown): FixAction[] {
  if (!isApiError(e) || e.kind !== 'auth') return [];
  return e.status === undefined ? [SET_API_KEY(), TRY_DEMO_MODE()] : [SET_API_KEY(), SIGN_IN_2FA()];
}

/** The failure `e` as the user sees it: its sentence and its fix buttons. */
export function failureOf(e: unknown): CommandFailure {
  return isCommandFailure(e) ? e : new CommandFailure(describeError(e), fixesFor(e));
}

/**
 * `e` as a failure worded by `wording` (what failed, then why), with the fixes of its kind; a
 * CommandFailure (already worded, e.g. resolveInstance's) passes unchanged.
 */
export function failedTo(e: unknown, wording: (why: string) => string): CommandFailure {
  if (isCommandFailure(e)) return e;
  const f = failureOf(e);
  return new CommandFailure(wording(f.message), f.fixes);
}

// Registered symbols: the same in every bundle that carries a copy of this module.
const FAILURE = Symbol.for('gpuRental.commandFailure');
const REPORTED = Symbol.for('gpuRental.commandFailureReported');

/** `result`, marked as a failure for the command's reporter (the result still goes to the caller). */
export function failedWith<T extends object>(result: T, failure: CommandFailure): T {
  Object.defineProperty(result, FAILURE, { value: failure, enumerable: false, configurable: true });
  return result;
}

/** The failure a command's result is marked with (failedWith), if any. */
export function failureIn(result: unknown): CommandFailure | undefined {
  return typeof result === 'object' && result !== null ? ((result as { [FAILURE]?: CommandFailure })[FAILURE] ?? undefined) : undefined;
}

/**
 * Runs a command's handler as registerCommands does: a thrown failure, or a result marked with
 * failedWith, is reported (once); scripts get the result, or undefined after a throw.
 */
export async function runReported(services: Pick<Services, 'log'>, command: string, run: () => Promise<unknown>): Promise<unknown> {
  try {
    const result = await run();
    const failure = failureIn(result);
    if (failure) reportCommandError(services, command, failure);
    return result;
  } catch (e) {
    reportCommandError(services, command, e);
    return undefined;
  }
}

/** THE command-error notice: logs the failure and shows it once, with its fix buttons. */
export function reportCommandError(services: Pick<Services, 'log'>, command: string, e: unknown): void {
  // A command run by another command is reported once, by the inner one.
  if (typeof e === 'object' && e !== null) {
    if ((e as { [REPORTED]?: boolean })[REPORTED]) return;
    Object.defineProperty(e, REPORTED, { value: true, enumerable: false });
  }
  const f = failureOf(e);
  services.log.error(`${command}: ${f.message}`);
  background(
    Promise.resolve(vscode.window.showErrorMessage(f.message, ...f.fixes.map((x) => x.title))).then((pick) => f.fixes.find((x) => x.title === pick)?.run()),
    services.log,
    `the failure notice of ${command}`,
  );
}
