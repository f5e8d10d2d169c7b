// The offer fields of the official CLI's query language: each field's value type, the aliases the
// CLI accepts, the units it converts, and the "did you mean" for an unknown one. Read by
// cliQuery.ts (the parser) and by whatever names a field to the user. Pure: no vscode.
import * as l10n from '@vscode/l10n';

export type FieldType = 'num' | 'bool' | 'str';

// The CLI's documented offer fields (and the spec's record fields), with the value type the CLI
// converts to. Unknown fields are refused, as the CLI does, with a suggestion.
export const FIELDS: Record<string, FieldType> = {
  ask_contract_id: 'num',
  bundle_id: 'num',
  bw_nvlink: 'num',
  compute_cap: 'num',
  cpu_arch: 'str',
  cpu_cores: 'num',
  cpu_cores_effective: 'num',
  cpu_ghz: 'num',
  cpu_name: 'str',
  cpu_ram: 'num',
  cuda_max_good: 'num',
  datacenter: 'bool',
  direct_port_count: 'num',
  disk_bw: 'num',
  disk_name: 'str',
  disk_space: 'num',
  dlperf: 'num',
  dlperf_per_dphtotal: 'num',
  dph_base: 'num',
  dph_total: 'num',
  driver_version: 'str',
  duration: 'num',
  external: 'bool',
  flops_per_dphtotal: 'num',
  geolocation: 'str',
  gpu_arch: 'str',
  gpu_display_active: 'bool',
  gpu_frac: 'num',
  gpu_lanes: 'num',
  gpu_max_power: 'num',
  gpu_max_temp: 'num',
  gpu_mem_bw: 'num',
  gpu_name: 'str',
  gpu_ram: 'num',
  gpu_total_ram: 'num',
  has_avx: 'bool',
  host_id: 'num',
  hosting_type: 'num',
  id: 'num',
  inet_down: 'num',
  inet_down_cost: 'num',
  inet_up: 'num',
  inet_up_cost: 'num',
  machine_id: 'num',
  min_bid: 'num',
  mobo_name: 'str',
  num_gpus: 'num',
  os_version: 'str',
  pci_gen: 'num',
  pcie_bw: 'num',
  reliability: 'num',
  rentable: 'bool',
  rented: 'bool',
  score: 'num',
  static_ip: 'bool',
  storage_cost: 'num',
  total_flops: 'num',
  ubuntu_version: 'str',
  verification: 'str',
  verified: 'bool',
  vms_enabled: 'bool',
  vram_costperhour: 'num',
};

/** The CLI's short names. */
export const FIELD_ALIASES: Readonly<Record<string, string>> = {
  dph: 'dph_total',
  dlperf_usd: 'dlperf_per_dphtotal',
  flops_usd: 'flops_per_dphtotal',
  cuda_vers: 'cuda_max_good',
  display_active: 'gpu_display_active',
  reliability2: 'reliability',
  gpu_totalram: 'gpu_total_ram',
};

/** Fields the CLI takes in friendlier units than the wire: GB -> MB (decimal, as the CLI), days -> seconds. */
export const MULTIPLIERS: Readonly<Record<string, number>> = { gpu_ram: 1000, cpu_ram: 1000, gpu_total_ram: 1000, duration: 86_400 };

/** The canonical field name for what a user typed (aliases resolved), or undefined when unknown. */
export function offerField(name: string): string | undefined {
  const n = name.toLowerCase();
  const f = FIELD_ALIASES[n] ?? n;
  return f in FIELDS ? f : undefined;
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

export function suggestField(name: string): string {
  const all = [...Object.keys(FIELDS), ...Object.keys(FIELD_ALIASES)];
  const best = all.map((f) => [f, distance(name.toLowerCase(), f)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= Math.max(2, Math.floor(name.length / 3)) ? l10n.t(" Did you mean '{0}'?", best[0]) : '';
}
