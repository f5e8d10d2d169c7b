// gpuRental.tfa.removeMethod: verified by the method's code, an e-mail code or a backup code.
// Scripted: `{ method, verify, code | backupCode, confirm: true }`.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function removeMethod(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows, target) => flows.removeMethod(target));
}
