// What every 2FA command shares: building the flows for one run (real prompts, or the
// scripted answers a caller passed), resolving a method from a tree node, refreshing.
import * as vscode from 'vscode';
import type { TfaMethod } from '../../api/types';
import type { Services } from '../../model/services';
import type { AccountRow } from '../../account/accountSnapshot';
import { TfaFlows, type FlowResult } from '../../account/tfaFlows';
import { scriptedPrompts, type TfaScript } from '../../account/tfaScript';
import { createVscodePrompts } from '../../views/account/tfaPrompts';

export interface TfaCommandContext {
  services: Services;
  extensionUri: vscode.Uri;
  /** Refreshes the Account view. */
  refresh(): void;
}

/** Arguments a command accepts: a tree node (context menu) or scripted answers. */
export type TfaCommandArg = AccountRow | TfaScript | undefined;

export function targetOf(arg: TfaCommandArg): TfaMethod | undefined {
  const m = (arg as AccountRow | undefined)?.method;
  return typeof m === 'object' && m !== null ? m : undefined;
}

function scriptOf(arg: TfaCommandArg): TfaScript {
  return arg && !targetOf(arg) && typeof arg === 'object' ? (arg as TfaScript) : {};
}

/** Runs one flow; the result is returned for scripts and tests. */
export async function runFlow<T>(
  ctx: TfaCommandContext,
  arg: TfaCommandArg,
  fn: (flows: TfaFlows, target: TfaMethod | undefined, script: TfaScript) => Promise<FlowResult<T>>,
): Promise<FlowResult<T>> {
  const script = scriptOf(arg);
  let api;
  try {
    api = await ctx.services.api();
  } catch (e) {
    const message = (e as Error).message || 'You are not signed in. Set your API key first, then try again.';
    void vscode.window.showErrorMessage(message);
    return { ok: false, reason: 'failed', message };
  }
  const flows = new TfaFlows({
    api,
    prompts: scriptedPrompts(script, createVscodePrompts(ctx.extensionUri)),
    state: ctx.services.globalState,
    setSessionKey: (k) => ctx.services.setSessionKey(k),
    log: ctx.services.log,
  });
  try {
    return await fn(flows, targetOf(arg), script);
  } catch (e) {
    ctx.services.log.error(`tfa: unexpected failure: ${(e as Error).message}`);
    const message = 'The 2FA step failed unexpectedly. Try again; if it repeats, open the log (GPU Rental: Show Log) and report it.';
    void vscode.window.showErrorMessage(message);
    return { ok: false, reason: 'failed', message };
  } finally {
    ctx.refresh();
  }
}
