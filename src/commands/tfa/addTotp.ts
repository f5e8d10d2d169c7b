// gpuRental.tfa.addTotp: add an authenticator app. Scripted: `{ code: (secret) => string, label? }`.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function addTotp(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows) => flows.addTotp());
}
