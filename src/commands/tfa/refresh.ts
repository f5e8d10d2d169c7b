// gpuRental.tfa.refresh: reload the Account view.
import type { TfaCommandContext } from './common';

export function refresh(ctx: TfaCommandContext): void {
  ctx.refresh();
}
