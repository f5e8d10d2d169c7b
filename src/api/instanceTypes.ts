// The instance as everything above the API layer sees it (the zod schemas of
// instanceSchemas.ts parse the wire into it), the lists, and the creation request and answer.

/** Normalised container state. Unknown wire values become 'unknown'; null becomes 'provisioning'. */
export type InstanceState =
  | 'provisioning' // actual_status null or 'created'
  | 'loading'
  | 'running'
  | 'stopped' // user stop: intended_status 'stopped' (actual 'exited' or 'stopped')
  | 'exited' // crashed while intended running: terminal failure
  | 'unknown' // no heartbeat, or any unrecognised value: terminal failure while intended running
  | 'offline' // host disconnected: terminal failure
  | 'frozen'
  | 'rebooting';

export interface PricingDetails {
  gpuCostPerHour?: number;
  diskHour?: number;
  totalHour?: number;
  discountTotalHour?: number;
  discountedTotalPerHour?: number;
}

/**
 * An instance as the service returns it, tolerantly parsed. Every spec field is present
 * as optional (the service omits or nulls fields freely); unknown fields are kept in `extra`.
 */
export interface Instance {
  id: number;
  /** Raw wire value of actual_status (null while provisioning). */
  actual_status: string | null;
  /** Derived from actual_status + intended_status, see InstanceState. */
  state: InstanceState;
  intended_status?: string | null;
  cur_state?: string | null;
  next_state?: string | null;
  label?: string | null;
  template_id?: number | null;
  template_hash_id?: string | null;
  template_name?: string | null;
  image_uuid?: string | null;
  image_args?: string[] | null;
  image_runtype?: string | null;
  /** Normalised to [name, value] pairs (the wire has "NAME=value" strings or pairs). */
  extra_env?: Array<[string, string]> | null;
  onstart?: string | null;
  /** Secret: never log or display. */
  jupyter_token?: string | null;
  status_msg?: string | null;
  local_ipaddrs?: string | null;
  ssh_host?: string | null;
  ssh_idx?: string | null;
  ssh_port?: number | null;
  machine_dir_ssh_port?: number | null;
  machine_id?: number | null;
  bundle_id?: number | null;
  start_date?: number | null;
  end_date?: number | null;
  uptime_mins?: number | null;
  duration?: number | null;
  cpu_arch?: string | null;
  cpu_cores?: number | null;
  cpu_cores_effective?: number | null;
  cpu_name?: string | null;
  cpu_ram?: number | null;
  cpu_util?: number | null;
  mem_limit?: number | null;
  mem_usage?: number | null;
  vmem_usage?: number | null;
  gpu_name?: string | null;
  gpu_arch?: string | null;
  gpu_totalram?: number | null;
  gpu_ram?: number | null;
  gpu_util?: number | null;
  gpu_temp?: number | null;
  gpu_frac?: number | null;
  gpu_lanes?: number | null;
  gpu_mem_bw?: number | null;
  bw_nvlink?: number | null;
  disk_name?: string | null;
  disk_space?: number | null;
  disk_bw?: number | null;
  disk_util?: number | null;
  disk_usage?: number | null;
  direct_port_count?: number | null;
  direct_port_start?: number | null;
  direct_port_end?: number | null;
  /** Normalised: container port -> host port (from either the integer-array or Docker shape). */
  ports?: Array<{ container: string; hostPort: number; hostIp?: string }> | null;
  static_ip?: boolean | null;
  public_ipaddr?: string | null;
  geolocation?: string | null;
  verification?: string | null;
  rentable?: boolean | null;
  host_id?: number | null;
  hosting_type?: number | null;
  min_bid?: number | null;
  is_bid?: boolean | null;
  dph_base?: number | null;
  dph_total?: number | null;
  dlperf?: number | null;
  dlperf_per_dphtotal?: number | null;
  flops_per_dphtotal?: number | null;
  total_flops?: number | null;
  score?: number | null;
  reliability2?: number | null;
  os_version?: string | null;
  mobo_name?: string | null;
  pci_gen?: number | null;
  pcie_bw?: number | null;
  num_gpus?: number | null;
  logo?: string | null;
  webpage?: string | null;
  search?: PricingDetails | null;
  instance?: PricingDetails | null;
  storage_cost?: number | null;
  storage_total_cost?: number | null;
  vram_costperhour?: number | null;
  credit_balance?: number | null;
  credit_discount?: number | null;
  credit_discount_max?: number | null;
  client_run_time?: number | null;
  host_run_time?: number | null;
  /** Accumulated cost of the instance in $, where the service reports it (not in the spec's table; the simulator does). */
  total_cost?: number | null;
  external?: boolean | null;
  time_remaining?: string | null;
  time_remaining_isbid?: string | null;
}

export interface InstanceList {
  instances_found: number;
  instances: Instance[];
  /** Which list answered: the live service's paged v1 list, or the seed's v0 list. */
  source?: 'v1' | 'v0';
  /** HTTP requests this list took (pages of a v1 walk; 1 for v0). */
  requests?: number;
  /** v1: the service's count of all matching instances (may differ from the walk if it changed meanwhile). */
  total_instances?: number;
}

/** What findInstances looks for: one filtered request, not a walk of the whole list. */
export interface InstanceFilter {
  label?: string;
  id?: number;
}

export type Runtype = 'ssh' | 'ssh_direct' | 'ssh_proxy' | 'jupyter' | 'jupyter_direct' | 'jupyter_proxy' | 'args';

export interface VolumeInfo {
  volume_id: number;
  mount_path: string;
}

/** The creation body (PUT /api/v0/asks/{offer_id}/), every field of the spec's creation table. */
export interface CreateInstanceRequest {
  image?: string;
  template_hash_id?: string;
  label?: string;
  disk?: number;
  runtype?: Runtype;
  target_state?: 'running' | 'stopped';
  price?: number;
  env?: Record<string, string>;
  onstart?: string;
  args_str?: string;
  use_jupyter_lab?: boolean;
  jupyter_dir?: string;
  python_utf8?: boolean;
  lang_utf8?: boolean;
  image_login?: string;
  cancel_unavail?: boolean;
  vm?: boolean;
  volume_info?: VolumeInfo;
}

export interface CreateInstanceResult {
  success: boolean;
  new_contract: number;
  /** Secret: never log or display. */
  instance_api_key?: string;
}
