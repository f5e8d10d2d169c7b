// gpuRental.tfa.regenerateBackupCodes: verified by a method, e-mail or backup code; shows the codes once.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function regenerateBackupCodes(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows) => flows.regenerateBackupCodes());
}
