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
    lines.push(
      l10n.t(
        'Outbid: the service stopped this interruptible instance because someone bid more{0}{1}. Storage keeps billing. Use Change Bid… to run it again.',
        bid !== undefined ? l10n.t(' than {0}', md(formatRate(bid, 3))) : '',
        typeof i.min_bid === 'number' ? l10n.t('; the minimum is now {0}', md(formatRate(i.min_bid, 3))) : '',
      ),
      '',
    );
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

export interface DetailModel {
  key: string;
  label: string;
  value: string;
  /** The value is a secret: shown masked, with a copy action only. */
  secret?: boolean;
}

/** Every field of the spec's Instance table, in its order. */
const DETAIL_FIELDS: ReadonlyArray<keyof Instance> = [
  'id',
  'actual_status',
  'intended_status',
  'cur_state',
  'next_state',
  'label',
  'template_id',
  'template_hash_id',
  'template_name',
  'image_uuid',
  'image_args',
  'image_runtype',
  'extra_env',
  'onstart',
  'jupyter_token',
  'status_msg',
  'local_ipaddrs',
  'ssh_host',
  'ssh_idx',
  'ssh_port',
  'machine_dir_ssh_port',
  'machine_id',
  'bundle_id',
  'start_date',
  'end_date',
  'uptime_mins',
  'duration',
  'cpu_arch',
  'cpu_cores',
  'cpu_cores_effective',
  'cpu_name',
  'cpu_ram',
  'cpu_util',
  'mem_limit',
  'mem_usage',
  'vmem_usage',
  'gpu_name',
  'gpu_arch',
  'gpu_totalram',
  'gpu_ram',
  'gpu_util',
  'gpu_temp',
  'gpu_frac',
  'gpu_lanes',
  'gpu_mem_bw',
  'bw_nvlink',
  'disk_name',
  'disk_space',
  'disk_bw',
  'disk_util',
  'disk_usage',
  'direct_port_count',
  'direct_port_start',
  'direct_port_end',
  'ports',
  'static_ip',
  'public_ipaddr',
  'geolocation',
  'verification',
  'rentable',
  'host_id',
  'hosting_type',
  'min_bid',
  'is_bid',
  'dph_base',
  'dph_total',
  'dlperf',
  'dlperf_per_dphtotal',
  'flops_per_dphtotal',
  'total_flops',
  'score',
  'reliability2',
  'os_version',
  'mobo_name',
  'pci_gen',
  'pcie_bw',
  'num_gpus',
  'logo',
  'webpage',
  'search',
  'instance',
  'storage_cost',
  'storage_total_cost',
  'vram_costperhour',
  'credit_balance',
  'credit_discount',
  'credit_discount_max',
  'client_run_time',
  'host_run_time',
  'external',
  'time_remaining',
  'time_remaining_isbid',
];

function fmtValue(key: string, v: unknown): string {
  if (key === 'start_date' || key === 'end_date') {
    return typeof v === 'number' && v > 0 ? new Date(v * 1000).toISOString().replace('.000Z', 'Z') : String(v);
  }
  if (key === 'extra_env' && Array.isArray(v)) {
    // Values may be template secrets: names only.
    return (v as Array<[string, string]>).map(([n]) => `${n}=…`).join(' ');
  }
  if (key === 'ports' && Array.isArray(v)) {
    return (v as Array<{ container: string; hostPort: number }>).map((p) => `${p.container}→${p.hostPort}`).join(', ');
  }
  if (Array.isArray(v)) return v.map((x) => String(x)).join(' ');
  if (typeof v === 'object' && v !== null) {
    return Object.entries(v)
      .filter(([, x]) => x !== undefined && x !== null)
      .map(([k, x]) => `${k}: ${typeof x === 'number' ? Number(x.toFixed(4)) : String(x)}`)
      .join(', ');
  }
  if (typeof v === 'number') return String(Number(v.toFixed(4)));
  return String(v);
}

export function instanceDetails(i: Instance): DetailModel[] {
  const out: DetailModel[] = [];
  for (const key of DETAIL_FIELDS) {
    const v = i[key];
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (key === 'jupyter_token') {
      out.push({ key, label: key, value: l10n.t('•••••••• (use Copy)'), secret: true });
      continue;
    }
    out.push({ key, label: key, value: fmtValue(key, v) });
  }
  return out;
}
