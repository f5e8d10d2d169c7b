// gpuRental.tfa.renameMethod: from a method's context menu or the palette. Scripted: `{ method, label }`.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function renameMethod(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows, target) => flows.rename(target));
}
