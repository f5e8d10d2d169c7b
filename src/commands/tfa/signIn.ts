// gpuRental.tfa.signIn: CLI-flow 2FA login; the session key becomes the bearer token.
import { runFlow, type TfaCommandArg, type TfaCommandContext } from './common';

export function signIn(ctx: TfaCommandContext, arg?: TfaCommandArg) {
  return runFlow(ctx, arg, (flows) => flows.signIn());
}
