// What a screen reader says for a row (TreeItem.accessibilityInformation): the whole of what the
// row shows and hides, in words: the full name (the row label may be shortened), the state (a
// running row shows no state word), the price, the GPUs, the idle guard and every mark, none
// of them cut by a narrow sidebar. Plain data, so the wording is unit-tested without VS Code.
import type { Instance } from '../api/types';
import { currentRate } from '../core/rates';
import { spoken, spokenRate } from '../core/spokenRow';
import { gpuText, instanceName, stateText } from '../core/instanceWords';
import type { GuardRowInfo } from './instanceViewModel';
import * as l10n from '@vscode/l10n';

/** An instance row: name, state (or the action under way), price, GPUs, guard, marks. */
export function instanceRowSpeech(i: Instance, o: { pending?: string; guard?: GuardRowInfo; marks?: readonly string[] } = {}): string {
  return spoken([
    instanceName(i),
    o.pending ?? stateText(i),
    spokenRate(currentRate(i)),
    gpuText(i),
    o.guard?.text && l10n.t('idle guard: {0}', o.guard.text),
    ...(o.marks ?? []).map((m) => `warning: ${m}`),
  ]);
}
