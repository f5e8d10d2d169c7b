// gpuRental.tfa.signOut: drop the 2FA session key; the API key is used again.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function signOut(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, async (flows) => {
    await flows.signOut();
    return { ok: true as const, value: undefined };
  });
}
