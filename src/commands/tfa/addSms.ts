// gpuRental.tfa.addSms: add an SMS method. Scripted: `{ phone, code, label? }`.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function addSms(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows) => flows.addSms());
}
