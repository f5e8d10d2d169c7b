// What a screen reader says for a row (TreeItem.accessibilityInformation): the whole of what the
// row shows and hides, in words: the full name (the row label may be shortened), the state (a
// running row shows no state word), the price, the GPUs, the idle guard and every mark, none
// of them cut by a narrow sidebar. Plain data, so the wording is unit-tested without VS Code.
import type { Instance, Offer } from '../api/types';
import { currentRate, formatRate } from '../costs/costs';
import { spoken } from '../core/spokenRow';
import { formatGpuRam, gpuText, instanceName, pct, stateText, type GuardRowInfo } from './instanceViewModel';

/** "$0.40/h" → "$0.40 per hour". */
export function spokenRate(perHour: number): string {
  return formatRate(perHour).replace(/\/h$/, ' per hour');
}

/** An instance row: name, state (or the action under way), price, GPUs, guard, marks. */
export function instanceRowSpeech(i: Instance, o: { pending?: string; guard?: GuardRowInfo; marks?: readonly string[] } = {}): string {
  return spoken([
    instanceName(i),
    o.pending ?? stateText(i),
    spokenRate(currentRate(i)),
    gpuText(i),
    o.guard?.text && `idle guard: ${o.guard.text}`,
    ...(o.marks ?? []).map((m) => `warning: ${m}`),
  ]);
}

/** An offer row: GPUs, price, GPU RAM, reliability, place, verified or not, offer id. */
export function offerRowSpeech(o: Offer): string {
  const verified = o.verified === true || o.verification === 'verified';
  const ram = formatGpuRam(o.gpu_ram ?? o.gpu_totalram);
  const rel = pct(o.reliability);
  return spoken([
    gpuText(o) || 'Offer',
    typeof o.dph_total === 'number' && spokenRate(o.dph_total),
    ram && `${ram} GPU RAM`,
    rel && `reliability ${rel}`,
    o.geolocation ?? undefined,
    verified ? 'verified' : 'not verified',
    `offer ${o.id}`,
  ]);
}
