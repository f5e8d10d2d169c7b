// Instance and offer rows as plain data (label, description, tooltip Markdown, icon and
// colour ids, contextValue), so the rules are unit-tested without VS Code.
import type { Instance, Offer } from '../api/types';
import { checkSshTarget, sshCommandLine } from '../ssh/sshValues';
import { describeSshAddress, sshAddress } from '../ssh/address';
import { computeRate, currentRate, formatRate, isBilledForCompute, storageRate } from '../costs/costs';
import { currentBid, isInterruptible, isOutbid } from './bid';

export type StateCategory = 'running' | 'loading' | 'stopped' | 'failed' | 'unknown';

export interface RowModel {
  /** Stable tree id (never contains changing values such as uptime). */
  id: string;
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  /** Codicon id. */
  icon: string;
  /** Theme colour id, or undefined for the default. */
  color: string | undefined;
  contextValue: string;
}

export function stateCategory(i: Instance): StateCategory {
  switch (i.state) {
    case 'running':
      return 'running';
    case 'provisioning':
    case 'loading':
    case 'rebooting':
      return 'loading';
    case 'stopped':
      return 'stopped';
    case 'exited':
    case 'unknown':
    case 'offline':
      return 'failed';
    default:
      return 'unknown';
  }
}

const STATE_TEXT: Record<string, string> = {
  provisioning: 'provisioning',
  loading: 'loading',
  running: 'running',
  stopped: 'stopped',
  exited: 'failed (exited)',
  unknown: 'failed (no heartbeat)',
  offline: 'failed (host offline)',
  frozen: 'frozen',
  rebooting: 'rebooting',
};

export function stateText(i: Instance): string {
  if (isOutbid(i)) return 'outbid';
  return STATE_TEXT[i.state] ?? i.state;
}

const ICONS: Record<StateCategory, { icon: string; color: string | undefined }> = {
  running: { icon: 'vm-running', color: 'testing.iconPassed' },
  loading: { icon: 'loading~spin', color: 'charts.yellow' },
  stopped: { icon: 'vm-outline', color: 'disabledForeground' },
  failed: { icon: 'error', color: 'errorForeground' },
  unknown: { icon: 'question', color: 'charts.orange' },
};

export function isJupyter(i: Instance): boolean {
  return /jupyter/i.test(i.image_runtype ?? '');
}

/**
 * `instance.<state>[.jupyter][.bid[.outbid]]`; menus match with /^instance\.running\b/,
 * /\.bid\b/ (interruptible: Change Bid…), /\.outbid\b/ etc.
 */
export function instanceContextValue(i: Instance): string {
  const bid = isInterruptible(i) ? (isOutbid(i) ? '.bid.outbid' : '.bid') : '';
  return `instance.${stateCategory(i)}${isJupyter(i) ? '.jupyter' : ''}${bid}`;
}

export function instanceName(i: Instance): string {
  const l = (i.label ?? '').trim();
  return l ? l : `#${i.id}`;
}

export function gpuText(g: { num_gpus?: number | null; gpu_name?: string | null }): string {
  if (!g.gpu_name && !g.num_gpus) return '';
  const name = g.gpu_name || 'GPU';
  return g.num_gpus ? `${g.num_gpus}× ${name}` : name;
}

/** Escape text for a Markdown tooltip (labels and messages come from users and hosts). */
export function md(text: string): string {
  // ':' and '@' too: an escaped "https\:" or "a\@b" cannot start a GFM autolink, which VS Code's
  // Markdown renderer would otherwise make from plain server text.
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~:@]/g, (c) => `\\${c}`);
}

/** GPU (or CPU) RAM from the service's MB, in decimal GB as the CLI counts: "24.6 GB", "80 GB". The one formatter for it. */
export function formatGpuRam(mb: number | null | undefined): string | undefined {
  return typeof mb === 'number' && mb > 0 ? `${(mb / 1000).toFixed(mb % 1000 === 0 ? 0 : 1)} GB` : undefined;
}
const gb = formatGpuRam;

export function perGpu(mb: number | null | undefined): string | undefined {
  const t = formatGpuRam(mb);
  return t && `${t} per GPU`;
}

export function pct(f: number | null | undefined): string | undefined {
  return typeof f === 'number' ? `${(f * 100).toFixed(1)}%` : undefined;
}

function uptime(mins: number | null | undefined): string | undefined {
  if (typeof mins !== 'number' || mins < 0) return undefined;
  if (mins < 60) return `${Math.round(mins)} min`;
  if (mins < 48 * 60) return `${(mins / 60).toFixed(1)} h`;
  return `${(mins / 1440).toFixed(1)} days`;
}

/**
 * `ssh -p PORT root@HOST` for a running instance, or why there is none. Host and port are
 * server text: they pass the SSH writer's own check (checkSshTarget), so nothing that a shell
 * would read as syntax ever reaches the command a user pastes.
 */
export function sshCommandFor(i: Instance): { command: string } | { problem: string } {
  // The service's rule (direct 22/tcp, else the proxy, +1 for Jupyter), as the SSH entry uses it.
  const a = sshAddress(i);
  const t = checkSshTarget(i.id, a?.host, a?.port);
  return t.ok ? { command: sshCommandLine(t) } : { problem: t.problem };
}

/** @internal test */
export function sshCommand(i: Instance): string | undefined {
  const r = sshCommandFor(i);
  return 'command' in r ? r.command : undefined;
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
      `Outbid: the service stopped this interruptible instance because someone bid more${bid !== undefined ? ` than ${md(formatRate(bid, 3))}` : ''}${typeof i.min_bid === 'number' ? `; the minimum is now ${md(formatRate(i.min_bid, 3))}` : ''}. Storage keeps billing. Use Change Bid… to run it again.`,
      '',
    );
  } else if (isInterruptible(i)) {
    const bid = currentBid(i);
    if (bid !== undefined) add('Bid', `${formatRate(bid, 3)} (interruptible)`);
  }
  if (i.status_msg) add('Status', i.status_msg);
  add('GPU RAM', perGpu(i.gpu_ram ?? i.gpu_totalram));
  add('CPU', [i.cpu_name, typeof i.cpu_cores_effective === 'number' ? `${i.cpu_cores_effective} cores` : undefined, gb(i.cpu_ram)].filter(Boolean).join(', ') || undefined);
  add('Disk', typeof i.disk_space === 'number' ? `${i.disk_space.toFixed(0)} GB` : undefined);
  add('Location', i.geolocation ?? undefined);
  add('Reliability', pct(i.reliability2));
  add('Uptime', i.state === 'running' ? uptime(i.uptime_mins) : undefined);
  const ssh = sshAddress(i);
  add('SSH', ssh ? describeSshAddress(ssh) : undefined);
  add('Image', i.image_uuid ?? undefined);
  const compute = computeRate(i);
  const storage = storageRate(i);
  lines.push(
    `- Cost: compute ${formatRate(compute)}, storage ${formatRate(storage)}, total ${formatRate(currentRate(i))}` +
      (isBilledForCompute(i) ? '' : ' (stopped: storage only)'),
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
    description: [[pending ?? (cat === 'running' ? undefined : stateText(i)), rate].filter(Boolean).join(' '), gpuText(i), guard?.text].filter(Boolean).join(' · '),
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
  'id', 'actual_status', 'intended_status', 'cur_state', 'next_state', 'label', 'template_id', 'template_hash_id',
  'template_name', 'image_uuid', 'image_args', 'image_runtype', 'extra_env', 'onstart', 'jupyter_token', 'status_msg',
  'local_ipaddrs', 'ssh_host', 'ssh_idx', 'ssh_port', 'machine_dir_ssh_port', 'machine_id', 'bundle_id', 'start_date',
  'end_date', 'uptime_mins', 'duration', 'cpu_arch', 'cpu_cores', 'cpu_cores_effective', 'cpu_name', 'cpu_ram',
  'cpu_util', 'mem_limit', 'mem_usage', 'vmem_usage', 'gpu_name', 'gpu_arch', 'gpu_totalram', 'gpu_ram', 'gpu_util',
  'gpu_temp', 'gpu_frac', 'gpu_lanes', 'gpu_mem_bw', 'bw_nvlink', 'disk_name', 'disk_space', 'disk_bw', 'disk_util',
  'disk_usage', 'direct_port_count', 'direct_port_start', 'direct_port_end', 'ports', 'static_ip', 'public_ipaddr',
  'geolocation', 'verification', 'rentable', 'host_id', 'hosting_type', 'min_bid', 'is_bid', 'dph_base', 'dph_total',
  'dlperf', 'dlperf_per_dphtotal', 'flops_per_dphtotal', 'total_flops', 'score', 'reliability2', 'os_version',
  'mobo_name', 'pci_gen', 'pcie_bw', 'num_gpus', 'logo', 'webpage', 'search', 'instance', 'storage_cost',
  'storage_total_cost', 'vram_costperhour', 'credit_balance', 'credit_discount', 'credit_discount_max',
  'client_run_time', 'host_run_time', 'external', 'time_remaining', 'time_remaining_isbid',
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
      out.push({ key, label: key, value: '•••••••• (use Copy)', secret: true });
      continue;
    }
    out.push({ key, label: key, value: fmtValue(key, v) });
  }
  return out;
}

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
        ['GPU RAM', perGpu(o.gpu_ram ?? o.gpu_totalram)],
        ['Reliability', rel],
        ['Location', o.geolocation ?? undefined],
        ['Verified', verified ? 'yes' : 'no'],
        ['DLPerf per $/h', perDollar],
        ['CPU', o.cpu_name ?? undefined],
        ['Disk', typeof o.disk_space === 'number' ? `${o.disk_space.toFixed(0)} GB` : undefined],
        ['Direct ports', typeof o.direct_port_count === 'number' ? String(o.direct_port_count) : undefined],
        ['Offer id', String(o.id)],
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

/**
 * What to tell the user when a creation ends stopped: asked for by the template, or left stopped
 * by the service (its machine could not be scheduled now, or an interruptible bid was outbid),
 * always with what the stopped instance still costs (its disk bills until it is destroyed).
 */
export function stoppedCreationMessage(i: Instance, templateName: string, asked: 'running' | 'stopped'): string {
  const storage = formatRate(storageRate(i));
  if (asked === 'stopped')
    return `Instance ${i.id} from "${templateName}" was created stopped, as the template asks; its disk bills ${storage} while it is stopped. Start it from the Instances view when you need it, or destroy it.`;
  return `Instance ${i.id} from "${templateName}" was created, but the service left it stopped (its machine cannot be scheduled now, or the bid was outbid). It is not running, and its disk bills ${storage} until you destroy it. Start it later from the Instances view, or destroy it and try another offer.`;
}
