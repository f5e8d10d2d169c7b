// The 2FA commands (gpuRental.tfa.*): each runs one TfaFlows flow with real prompts, or with the
// scripted answers a caller passed, and refreshes the Account view afterwards. This file is a
// lazily loaded bundle (see the loaders in src/app/commandTable.ts): the flows are not needed at
// activation.
import * as vscode from 'vscode';
import type { TfaMethod } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import type { AccountRow } from '../../../core/accountRow';
import { TfaFlows } from '../../tfaFlows';
import type { FlowResult } from '../../tfaPorts';
import { scriptedPrompts, type TfaScript } from '../../tfaScript';
import { CommandFailure, SHOW_OUTPUT_LOG, failedWith, failureOf } from '../../../core/vscode/commandFailure';
import { createVscodePrompts } from '../tfaPrompts';
import { demoTotpCode, simulatorInbox } from '../../../demo/demoInbox';
import type { DemoFolders } from '../../backupCodesFile';

/** Arguments a command accepts: a tree node (context menu) or scripted answers. */
export type TfaCommandArg = AccountRow | TfaScript | undefined;

export function targetOf(arg: TfaCommandArg): TfaMethod | undefined {
  const m = (arg as AccountRow | undefined)?.method;
  return typeof m === 'object' && m !== null ? m : undefined;
}

function scriptOf(arg: TfaCommandArg): TfaScript {
  return arg && !targetOf(arg) && typeof arg === 'object' ? (arg as TfaScript) : {};
}

/** The demo's folders for file dialogs: `npm run demo`'s workspace copy, else the demo's temporary HOME. */
async function demoFolders(services: Pick<Services, 'onDidChangeConnection' | 'track'>): Promise<DemoFolders> {
  const { demoSshHome } = await import('../../../ssh/vscode/sshHost');
  const { DEMO_DIR_ENV } = await import('../../../ssh/demoHome');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return {
    ...(process.env[DEMO_DIR_ENV] && folder?.scheme === 'file' ? { demoWorkspace: folder.fsPath } : {}),
    demoHome: () => demoSshHome(services).path(),
  };
}

/** Runs one flow; the result is returned for scripts and tests. */
async function runFlow<T>(
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg: TfaCommandArg,
  fn: (flows: TfaFlows, target: TfaMethod | undefined) => Promise<FlowResult<T>>,
): Promise<FlowResult<T>> {
  const script = scriptOf(arg);
  let api;
  try {
    api = await services.api();
  } catch (e) {
    // Not signed in (or no client): the command's reporter says it, with the buttons that sign in.
    const failure = failureOf(e);
    return failedWith({ ok: false, reason: 'failed', message: failure.message }, failure);
  }
  const demo = services.connection().demo;
  const flows = new TfaFlows({
    api,
    prompts: scriptedPrompts(
      script,
      createVscodePrompts(services.extensionUri, demo ? { totpCode: demoTotpCode, folders: await demoFolders(services) } : undefined),
    ),
    // The demo has no real e-mail or phone: its codes come from the simulator's inbox.
    ...(demo ? { inbox: simulatorInbox(services.connection().baseUrl, () => services.connectionState.token()) } : {}),
    state: services.globalState,
    setSessionKey: (k) => services.setSessionKey(k),
    log: services.log,
    // The Account view shows the new state while the backup codes are still open.
    changed: () => services.refreshAccount(),
  });
  try {
    return await fn(flows, targetOf(arg));
  } catch (e) {
    services.log.error(`tfa: unexpected failure: ${(e as Error).message}`);
    const message = 'The 2FA step failed unexpectedly. Try again; if it repeats, open the log (GPU Rental: Show Output Log) and report it.';
    return failedWith({ ok: false, reason: 'failed', message }, new CommandFailure(message, [SHOW_OUTPUT_LOG()]));
  } finally {
    services.refreshAccount();
  }
}

/** gpuRental.tfa.addTotp: add an authenticator app. Scripted: `{ code: (secret) => string, label? }`. */
export const addTotp = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f) => f.addTotp());

/** gpuRental.tfa.addSms: add an SMS method. Scripted: `{ phone, code, label? }`. */
export const addSms = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f) => f.addSms());

/** gpuRental.tfa.regenerateBackupCodes: verified by a method, e-mail or backup code; shows the codes once. */
export const regenerateBackupCodes = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f) => f.regenerateBackupCodes());

/** gpuRental.tfa.signIn: CLI-flow 2FA login; the session key becomes the bearer token. */
export const signIn = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f) => f.signIn());

/** gpuRental.tfa.signOut: drop the 2FA session key; the API key is used again. */
export const signOut = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) =>
  runFlow(services, arg, async (f) => {
    await f.signOut();
    return { ok: true as const, value: undefined };
  });

/** gpuRental.tfa.renameMethod: from a method's context menu or the palette. Scripted: `{ method, label }`. */
export const renameMethod = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f, target) => f.rename(target));

/** gpuRental.tfa.makePrimary: from a method's context menu or the palette. Scripted: `{ method }`. */
export const makePrimary = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f, target) => f.makePrimary(target));

/**
 * gpuRental.tfa.removeMethod: verified by the method's code, an e-mail code or a backup code.
 * Scripted: `{ method, verify, code | backupCode, confirm: true }`.
 */
export const removeMethod = (
  services: Pick<
    Services,
    'api' | 'connection' | 'connectionState' | 'extensionUri' | 'globalState' | 'log' | 'onDidChangeConnection' | 'refreshAccount' | 'setSessionKey' | 'track'
  >,
  arg?: TfaCommandArg,
) => runFlow(services, arg, (f, target) => f.removeMethod(target));
