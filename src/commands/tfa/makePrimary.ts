// gpuRental.tfa.makePrimary: from a method's context menu or the palette. Scripted: `{ method }`.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function makePrimary(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows, target) => flows.makePrimary(target));
}
