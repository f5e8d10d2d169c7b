// Instance rows and details as plain data (label, description, tooltip Markdown, icon and
// colour ids, contextValue), so the rules are unit-tested without VS Code. The words they use
// (name, state, GPUs) are src/core/instanceWords.ts; offer rows are src/offers/offerRow.ts.
import type { Instance } from '../api/types';
import type { RowModel } from '../core/rowModel';
import {
  formatGpuRam as gb,
  gpuText,
  instanceName,
  isInterruptible,
  isJupyter,
  isOutbid,
  perGpu,
  stateCategory,
  stateText,
  type StateCategory,
} from '../core/instanceWords';
import { md, pct } from '../core/textFormat';
import { describeSshAddress, sshAddress } from '../ssh/address';
import { computeRate, currentRate, formatRate, isBilledForCompute, storageRate } from '../core/rates';
import { currentBid } from './bid';
import * as l10n from '@vscode/l10n';

const ICONS: Record<StateCategory, { icon: string; color: string | undefined }> = {
  running: { icon: 'vm-running', color: 'testing.iconPassed' },
  loading: { icon: 'loading~spin', color: 'charts.yellow' },
  stopped: { icon: 'vm-outline', color: 'disabledForeground' },
  failed: { icon: 'error', color: 'errorForeground' },
  unknown: { icon: 'question', color: 'charts.orange' },
};

/**
 * `instance.<state>[.jupyter][.bid[.outbid]]`; menus match with /^instance\.running\b/,
 * /\.bid\b/ (interruptible: Change Bid…), /\.outbid\b/ etc.
 */
export function instanceContextValue(i: Instance): string {
  const bid = isInterruptible(i) ? (isOutbid(i) ? '.bid.outbid' : '.bid') : '';
  return `instance.${stateCategory(i)}${isJupyter(i) ? '.jupyter' : ''}${bid}`;
}

function uptime(mins: number | null | undefined): string | undefined {
  if (typeof mins !== 'number' || mins < 0) return undefined;
  if (mins < 60) return `${Math.round(mins)} min`;
  if (mins < 48 * 60) return `${(mins / 60).toFixed(1)} h`;
  return `${(mins / 1440).toFixed(1)} days`;
}

/** The host port mapped to a container port (e.g. 8080), from either ports shape. */
export function mappedPort(i: Instance, containerPort: number): number | undefined {
  const p = (i.ports ?? []).find((x) => x.container === String(containerPort) || x.container.startsWith(`${containerPort}/`));
  return p && p.hostPort > 0 ? p.hostPort : undefined;
}

/** http://public_ipaddr:<host port of 8080>/?token=… for jupyter_direct; contains a secret. */
export function jupyterUrl(i: Instance): string | undefined {
  const port = mappedPort(i, 8080);
  const ip = (i.public_ipaddr ?? '').trim();
  if (!port || !ip || !i.jupyter_token) return undefined;
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return `http://${host}:${port}/?token=${encodeURIComponent(i.jupyter_token)}`;
}

/** The idle guard's line for a row and its tooltip lines (src/guard/monitor.ts). */
export interface GuardRowInfo {
  text: string;
  details: string[];
}

/** `spent`: "Cost so far: …" (Services.costs), when known. */
export function instanceTooltip(i: Instance, guard?: GuardRowInfo, spent?: string): string {
  const lines: string[] = [[`**${md(instanceName(i))}**`, md(gpuText(i)), md(stateText(i))].filter(Boolean).join(' · '), ''];
  const add = (k: string, v: string | undefined): void => {
    if (v !== undefined && v !== '') lines.push(`- ${k}: ${md(v)}`);
  };
  if (isOutbid(i)) {
    const bid = currentBid(i);
    const rate3 = (x: number) => md(formatRate(x, 3));
    const why =
      bid !== undefined
        ? l10n.t('Outbid: the service stopped this interruptible instance because someone bid more than {0}.', rate3(bid))
        : l10n.t('Outbid: the service stopped this interruptible instance because someone bid more.');
    const min = typeof i.min_bid === 'number' ? ` ${l10n.t('The minimum bid is now {0}.', rate3(i.min_bid))}` : '';
    lines.push(`${why}${min} ${l10n.t('Storage keeps billing. Use Change Bid… to run it again.')}`, '');
  } else if (isInterruptible(i)) {
    const bid = currentBid(i);
    if (bid !== undefined) add(l10n.t('Bid'), l10n.t('{0} (interruptible)', formatRate(bid, 3)));
  }
  if (i.status_msg) add(l10n.t('Status'), i.status_msg);
  add(l10n.t('GPU RAM'), perGpu(i.gpu_ram ?? i.gpu_totalram));
  add(
    'CPU',
    [i.cpu_name, typeof i.cpu_cores_effective === 'number' ? l10n.t('{0} cores', i.cpu_cores_effective) : undefined, gb(i.cpu_ram)]
      .filter(Boolean)
      .join(', ') || undefined,
  );
  add(l10n.t('Disk'), typeof i.disk_space === 'number' ? `${i.disk_space.toFixed(0)} GB` : undefined);
  add(l10n.t('Location'), i.geolocation ?? undefined);
  add(l10n.t('Reliability'), pct(i.reliability2));
  add(l10n.t('Uptime'), i.state === 'running' ? uptime(i.uptime_mins) : undefined);
  const ssh = sshAddress(i);
  add('SSH', ssh ? describeSshAddress(ssh) : undefined);
  add(l10n.t('Image'), i.image_uuid ?? undefined);
  const compute = computeRate(i);
  const storage = storageRate(i);
  lines.push(
    l10n.t('- Cost: compute {0}, storage {1}, total {2}', formatRate(compute), formatRate(storage), formatRate(currentRate(i))) +
      (isBilledForCompute(i) ? '' : l10n.t(' (stopped: storage only)')),
  );
  if (spent) lines.push(`- ${md(spent)}`);
  for (const d of guard?.details ?? []) lines.push(`- ${md(d)}`);
  return lines.join('\n');
}

/**
 * Longest row label: with it, the state and the price after it still fit a default-width
 * sidebar (about 30 characters beside the icon).
 */
export const ROW_LABEL_MAX = 12;

/**
 * The name as the row shows it: a long label is shortened in the middle (its end, where the
 * generated suffix is, stays), so the price and state after it are not pushed out of sight.
 * The tooltip and Details keep the full label.
 */
export function rowLabel(i: Instance): string {
  const name = instanceName(i);
  const chars = [...name];
  if (chars.length <= ROW_LABEL_MAX) return name;
  const tail = 7; // a generated label's "-xxxx" suffix and a little before it
  return `${chars.slice(0, ROW_LABEL_MAX - tail - 1).join('')}…${chars.slice(-tail).join('')}`;
}

export function instanceRow(i: Instance, pending?: string, guard?: GuardRowInfo, spent?: string): RowModel {
  const cat = stateCategory(i);
  const look = pending ? { icon: 'loading~spin', color: 'charts.yellow' } : ICONS[cat];
  const rate = formatRate(currentRate(i));
  return {
    id: `instance:${i.id}`,
    label: rowLabel(i),
    // What is happening first ("stopped", "Stopping…": a running row needs no word), then $/h, so a
    // narrow sidebar still shows both; the GPUs and the guard come last, where truncation may take them.
    description: [[pending ?? (cat === 'running' ? undefined : stateText(i)), rate].filter(Boolean).join(' '), gpuText(i), guard?.text]
      .filter(Boolean)
      .join(' · '),
    tooltip: instanceTooltip(i, guard, spent),
    icon: look.icon,
    color: look.color,
    contextValue: instanceContextValue(i),
  };
}
