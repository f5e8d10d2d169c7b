// The rows under an expanded instance (and the table of Show Instance Details): every set field
// of the record, labelled in words (the API's key stays in the tooltip and the document), its
// value formatted, and every secret it may carry masked. Plain data, unit-tested without VS Code.
import type { Instance } from '../api/types';
import { redactLog } from '../api/logs';
import * as l10n from '@vscode/l10n';

export interface DetailModel {
  /** The API's field name (`gpu_name`). */
  key: string;
  /** The field in words (`GPU`); the key itself for a field without words. */
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

/**
 * The fields people read most, in words (units where the API gives one). A field not listed keeps
 * its API name as its label: less common, and exactly what the API documentation calls it.
 */
/** Built when asked, after activation gave the translations (a module constant would stay English). */
const detailLabels = (): Partial<Record<keyof Instance, string>> => ({
  id: l10n.t('Instance ID'),
  actual_status: l10n.t('Status'),
  intended_status: l10n.t('Intended status'),
  cur_state: l10n.t('Current state'),
  next_state: l10n.t('Next state'),
  label: l10n.t('Label'),
  template_id: l10n.t('Template ID'),
  template_name: l10n.t('Template'),
  image_uuid: l10n.t('Image'),
  image_args: l10n.t('Image arguments'),
  image_runtype: l10n.t('Launch mode'),
  extra_env: l10n.t('Environment variables'),
  onstart: l10n.t('On-start script'),
  jupyter_token: l10n.t('Jupyter token'),
  status_msg: l10n.t('Status message'),
  local_ipaddrs: l10n.t('Local IP addresses'),
  ssh_host: l10n.t('SSH host'),
  ssh_port: l10n.t('SSH port'),
  machine_id: l10n.t('Machine ID'),
  start_date: l10n.t('Started'),
  end_date: l10n.t('Contract ends'),
  uptime_mins: l10n.t('Uptime (minutes)'),
  duration: l10n.t('Duration (seconds)'),
  cpu_arch: l10n.t('CPU architecture'),
  cpu_name: l10n.t('CPU'),
  cpu_cores: l10n.t('CPU cores'),
  cpu_cores_effective: l10n.t('CPU cores allocated'),
  cpu_ram: l10n.t('System RAM (MB)'),
  cpu_util: l10n.t('CPU utilization'),
  mem_limit: l10n.t('Memory limit (MB)'),
  mem_usage: l10n.t('Memory used (MB)'),
  gpu_name: l10n.t('GPU'),
  gpu_arch: l10n.t('GPU architecture'),
  num_gpus: l10n.t('GPUs'),
  gpu_totalram: l10n.t('GPU memory, total (MB)'),
  gpu_ram: l10n.t('GPU memory (MB)'),
  gpu_util: l10n.t('GPU utilization'),
  gpu_temp: l10n.t('GPU temperature (°C)'),
  disk_name: l10n.t('Disk model'),
  disk_space: l10n.t('Disk (GB)'),
  disk_usage: l10n.t('Disk usage (%)'),
  direct_port_count: l10n.t('Direct ports'),
  ports: l10n.t('Ports'),
  static_ip: l10n.t('Static IP'),
  public_ipaddr: l10n.t('Public IP address'),
  geolocation: l10n.t('Location'),
  verification: l10n.t('Verification'),
  host_id: l10n.t('Host ID'),
  is_bid: l10n.t('Interruptible (bid)'),
  min_bid: l10n.t('Minimum bid ($/h)'),
  dph_base: l10n.t('Base price per hour ($)'),
  dph_total: l10n.t('Price per hour ($)'),
  storage_cost: l10n.t('Storage cost'),
  reliability2: l10n.t('Reliability'),
  os_version: l10n.t('OS version'),
});

/** A field's label: its words, or its API name. */
export function detailLabel(key: string): string {
  return detailLabels()[key as keyof Instance] ?? key;
}

// Secrets a value may carry in clear: an expanded ${secret:NAME} of a template (known values),
// NAME=value assignments and token shapes (redactLog), and command-line secret flags
// (`-p TOKEN` of a registry login, `--token=…`, `--password …`).
const FLAG_SECRET = /((?:^|\s)(?:-p|--(?:password|passwd|token|api[-_]?key|secret|access[-_]key)(?=[\s=]))[\s=]+)(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)/gi;

/** A value with every secret it may carry masked: what the rows, Details and Copy Value show of onstart and every other field. */
export function maskSecrets(v: string, secrets: ReadonlyArray<string | undefined> = []): string {
  return redactLog(v, secrets).replace(FLAG_SECRET, '$1***');
}

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

/**
 * Every set field, in the spec's order. The Jupyter token is never a value here (a masked row with
 * its own copy action); `secrets` (the values this window knows are secret) and every
 * secret-shaped part of a value are masked, so nothing a row shows or Copy Value copies is one.
 */
export function instanceDetails(i: Instance, secrets: ReadonlyArray<string | undefined> = []): DetailModel[] {
  const out: DetailModel[] = [];
  for (const key of DETAIL_FIELDS) {
    const v = i[key];
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    const label = detailLabel(key);
    if (key === 'jupyter_token') {
      out.push({ key, label, value: l10n.t('•••••••• (use Copy Jupyter Token)'), secret: true });
      continue;
    }
    out.push({ key, label, value: maskSecrets(fmtValue(key, v), [...secrets, i.jupyter_token ?? undefined]) });
  }
  return out;
}
