// An offer's row in the Offers view as plain data (label, description, tooltip Markdown, icon).
import type { Offer } from '../api/types';
import type { RowModel } from '../core/rowModel';
import { formatGpuRam, formatGpuRam as gb, gpuText, perGpu } from '../core/instanceWords';
import { md, pct } from '../core/textFormat';
import { formatRate } from '../core/rates';
import { spoken, spokenRate } from '../core/spokenRow';
import * as l10n from '@vscode/l10n';

export function offerRow(o: Offer): RowModel {
  const ramGb = gb(o.gpu_ram ?? o.gpu_totalram);
  const rel = pct(o.reliability);
  const verified = o.verified === true || o.verification === 'verified';
  const perDollar = typeof o.dlperf_per_dphtotal === 'number' ? `${o.dlperf_per_dphtotal.toFixed(1)} dlperf/$` : undefined;
  const desc = [formatRate(o.dph_total), ramGb, rel, o.geolocation ?? undefined].filter(Boolean).join(' · ');
  const tip = [
    `**${md(gpuText(o))}** · ${md(formatRate(o.dph_total))}`,
    '',
    ...(
      [
        [l10n.t('GPU RAM'), perGpu(o.gpu_ram ?? o.gpu_totalram)],
        [l10n.t('Reliability'), rel],
        [l10n.t('Location'), o.geolocation ?? undefined],
        [l10n.t('Verified'), verified ? l10n.t('yes') : l10n.t('no')],
        [l10n.t('DLPerf per $/h'), perDollar],
        ['CPU', o.cpu_name ?? undefined],
        [l10n.t('Disk'), typeof o.disk_space === 'number' ? `${o.disk_space.toFixed(0)} GB` : undefined],
        [l10n.t('Direct ports'), typeof o.direct_port_count === 'number' ? String(o.direct_port_count) : undefined],
        [l10n.t('Offer id'), String(o.id)],
      ] as Array<[string, string | undefined]>
    )
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `- ${k}: ${md(v as string)}`),
  ].join('\n');
  return {
    id: `offer:${o.id}`,
    label: gpuText(o),
    description: desc + (verified ? ' · verified' : '') + (perDollar ? ` · ${perDollar}` : ''),
    tooltip: tip,
    icon: verified ? 'verified' : 'server',
    color: undefined,
    contextValue: 'offer',
  };
}

/** An offer row: GPUs, price, GPU RAM, reliability, place, verified or not, offer id. */
export function offerRowSpeech(o: Offer): string {
  const verified = o.verified === true || o.verification === 'verified';
  const ram = formatGpuRam(o.gpu_ram ?? o.gpu_totalram);
  const rel = pct(o.reliability);
  return spoken([
    gpuText(o) || 'Offer',
    typeof o.dph_total === 'number' && spokenRate(o.dph_total),
    ram && l10n.t('{0} GPU RAM', ram),
    rel && `reliability ${rel}`,
    o.geolocation ?? undefined,
    verified ? l10n.t('verified') : l10n.t('not verified'),
    `offer ${o.id}`,
  ]);
}
