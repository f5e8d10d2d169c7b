// How tool results read: one short line per thing with its id, state and price, so a model can
// act on it. Every text the service or a host controls (labels, GPU names, status messages) is
// made one plain line first: no control or direction characters, no Markdown or shell syntax
// that could act, secrets masked, bounded.
import type { Instance, Offer } from '../api/types';
import { serverLine } from '../create/failedBoot';
import { currentRate, formatMoney } from '../core/rates';
import { gpuText, stateText } from '../core/instanceWords';
import { installedGuard } from '../guard/installed';
import { rate } from './caps';
import * as l10n from '@vscode/l10n';

/**
 * Characters that make Markdown or HTML act where a client renders the text: links and images
 * ([…](…)), code spans and fences, tags, tables, escapes. Prices ($), labels (my_model) and
 * ids (#12) keep their characters; nothing here reaches a shell (the SSH command is checked on
 * its own, src/ssh/sshValues.ts).
 */
const ACTIVE = /[`<>[\]|\\]/g;

/** Service- or host-controlled text as a plain, inert line (at most `max` characters); '' when there is none. */
export function plain(text: string | null | undefined, secrets: readonly string[] = [], max = 80): string {
  const line = serverLine(text, secrets)?.replace(ACTIVE, ' ').replace(/\s+/g, ' ').trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A message this extension wrote (the create flow's), which may quote service text: secrets
 * masked, made inert like plain(), but whole (plain() bounds host text to one short line).
 */
export function flowText(text: string, secrets: readonly string[]): string {
  return text
    .split(/(?<=[.!?:])\s+/)
    .map((sentence) => plain(sentence, secrets, 400))
    .filter(Boolean)
    .join(' ');
}

/** `label "x"` when there is a label (quoted, so a model never reads it as an instruction). */
function labelPart(label: string | null | undefined): string {
  const l = plain(label, [], 64).replace(/"/g, "'");
  return l ? ` "${l}"` : '';
}

/** "stop after 30 idle min" from the guard the instance's onstart really starts; "no idle guard" otherwise. */
export function guardText(onstart: string | null | undefined): string {
  const g = installedGuard(onstart);
  if (!g) return l10n.t('no idle guard');
  const cap = g.capSeconds !== undefined ? l10n.t(', at the latest after {0} h', (g.capSeconds / 3600).toFixed(1)) : '';
  return g.action === 'destroy'
    ? l10n.t('guard: destroys it after {0} idle min{1}', g.idleMinutes, cap)
    : l10n.t('guard: stops it after {0} idle min{1}', g.idleMinutes, cap);
}

/** What the instance has cost since it started at its current rate (an estimate; the charges are exact). */
export function costSoFar(i: Instance, nowMs: number): number | undefined {
  if (typeof i.start_date !== 'number' || !(i.start_date > 0)) return undefined;
  const hours = Math.max(0, nowMs / 1000 - i.start_date) / 3600;
  return hours * currentRate(i);
}

/** `#123 "label" running, 1× RTX 4090, $0.412/h, ≈$1.20 so far, guard: …, ssh gpu-label-123`. */
export function instanceLine(i: Instance, nowMs: number, alias?: string): string {
  const gpu = plain(gpuText(i), [], 48);
  const cost = costSoFar(i, nowMs);
  return [
    `#${i.id}${labelPart(i.label)} ${stateText(i)}`,
    gpu || undefined,
    rate(currentRate(i)),
    cost !== undefined ? l10n.t('≈{0} so far', formatMoney(cost)) : undefined,
    guardText(i.onstart),
    alias ? `ssh ${alias}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/** `offer 4242: 1× RTX 4090 24 GB, $0.412/h with 16 GB disk, reliability 99.1 %, verified, US`. */
export function offerLine(o: Offer, diskGb?: number): string {
  const ram = typeof o.gpu_ram === 'number' ? ` ${Math.round(o.gpu_ram / 1000)} GB` : '';
  const where = plain(o.geolocation, [], 32);
  return [
    `offer ${o.id}: ${o.num_gpus}× ${plain(o.gpu_name, [], 40)}${ram}`,
    l10n.t('{0} with {1}disk', rate(o.dph_total), diskGb !== undefined ? `${diskGb} GB ` : ''),
    typeof o.reliability === 'number' ? `reliability ${(o.reliability * 100).toFixed(1)} %` : undefined,
    o.verified === false ? 'unverified' : o.verified ? 'verified' : undefined,
    where || undefined,
  ]
    .filter(Boolean)
    .join(', ');
}
