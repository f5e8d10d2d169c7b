// Response schemas of the instance endpoints: one instance (ports and env in every shape the
// service sends, the state derived from actual and intended status), the v0 and v1 lists, the
// show answer and the creation answer.
import * as z from 'zod/mini';
import type { CreateInstanceResult, Instance, InstanceList, InstanceState } from './instanceTypes';
import { instanceId, lbool, lnum, lstr, lstrArray, numberish, pricing } from './schemaBasics';

// ---------------------------------------------------------------- ports and env

export type PortMapping = NonNullable<Instance['ports']>[number];

function normContainerPort(key: string): string {
  const k = key.trim();
  return k.includes('/') ? k : `${k}/tcp`;
}

/**
 * `ports` in either shape: the spec's array of integers (each port exposed as itself) or
 * Docker's `{"22/tcp":[{"HostIp":"0.0.0.0","HostPort":"41000"}]}`. Container keys are
 * normalised to "<port>/<proto>" so callers can always look up "22/tcp".
 */
export function normalizePorts(raw: unknown): PortMapping[] | null | undefined {
  if (raw === null) return null;
  if (raw === undefined) return undefined;
  const out: PortMapping[] = [];
  if (Array.isArray(raw)) {
    for (const p of raw) {
      const n = z.safeParse(numberish, p);
      if (n.success && Number.isInteger(n.data) && n.data > 0) out.push({ container: `${n.data}/tcp`, hostPort: n.data });
    }
    return out;
  }
  if (typeof raw === 'object') {
    for (const [key, bindings] of Object.entries(raw as Record<string, unknown>)) {
      if (!Array.isArray(bindings)) continue;
      for (const b of bindings) {
        if (!b || typeof b !== 'object') continue;
        const rec = b as Record<string, unknown>;
        const hp = z.safeParse(numberish, rec.HostPort ?? rec.hostPort);
        if (!hp.success || !Number.isInteger(hp.data) || hp.data <= 0) continue;
        const ip = rec.HostIp ?? rec.hostIp;
        const container = normContainerPort(key);
        // Docker lists the same binding once per address family; one entry is enough.
        if (out.some((m) => m.container === container && m.hostPort === hp.data)) continue;
        out.push({
          container,
          hostPort: hp.data,
          ...(typeof ip === 'string' && ip !== '' ? { hostIp: ip } : {}),
        });
      }
    }
    return out;
  }
  return undefined;
}

/** `extra_env` as "NAME=value" strings, [name, value] pairs, or an object -> [name, value] pairs. */
export function normalizeExtraEnv(raw: unknown): Array<[string, string]> | null | undefined {
  if (raw === null) return null;
  if (raw === undefined) return undefined;
  const out: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (const e of raw) {
      if (typeof e === 'string') {
        const i = e.indexOf('=');
        if (i > 0) out.push([e.slice(0, i), e.slice(i + 1)]);
        else if (e) out.push([e, '']);
      } else if (Array.isArray(e) && typeof e[0] === 'string') {
        out.push([e[0], e[1] === undefined || e[1] === null ? '' : String(e[1])]);
      }
    }
    return out;
  }
  if (typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out.push([k, v == null ? '' : String(v)]);
    return out;
  }
  return undefined;
}

// ---------------------------------------------------------------- instance state

const KNOWN_STATES: ReadonlySet<string> = new Set(['loading', 'running', 'exited', 'unknown', 'offline', 'frozen', 'rebooting', 'stopped']);

/**
 * Normalised state from actual_status + intended_status (field notes: a user stop shows
 * actual 'exited' with intended 'stopped'; null or 'created' while provisioning).
 */
export function deriveState(actual: string | null | undefined, intended: string | null | undefined): InstanceState {
  const a = typeof actual === 'string' ? actual.trim().toLowerCase() : actual;
  const i = typeof intended === 'string' ? intended.trim().toLowerCase() : intended;
  if (i === 'stopped' && (a === 'exited' || a === 'stopped' || a === 'offline' || a === 'unknown' || a == null || a === 'created')) return 'stopped';
  if (a === null || a === undefined || a === '' || a === 'created') return 'provisioning';
  if (a === 'stopped') return 'stopped';
  if (KNOWN_STATES.has(a)) return a as InstanceState;
  return 'unknown';
}

// ---------------------------------------------------------------- instance

const INSTANCE_NUM = [
  'template_id',
  'ssh_port',
  'machine_dir_ssh_port',
  'machine_id',
  'bundle_id',
  'start_date',
  'end_date',
  'uptime_mins',
  'duration',
  'cpu_cores',
  'cpu_cores_effective',
  'cpu_ram',
  'cpu_util',
  'mem_limit',
  'mem_usage',
  'vmem_usage',
  'gpu_totalram',
  'gpu_ram',
  'gpu_util',
  'gpu_temp',
  'gpu_frac',
  'gpu_lanes',
  'gpu_mem_bw',
  'bw_nvlink',
  'disk_space',
  'disk_bw',
  'disk_util',
  'disk_usage',
  'direct_port_count',
  'direct_port_start',
  'direct_port_end',
  'host_id',
  'hosting_type',
  'min_bid',
  'dph_base',
  'dph_total',
  'dlperf',
  'dlperf_per_dphtotal',
  'flops_per_dphtotal',
  'total_flops',
  'score',
  'reliability2',
  'pci_gen',
  'pcie_bw',
  'num_gpus',
  'storage_cost',
  'storage_total_cost',
  'vram_costperhour',
  'credit_balance',
  'credit_discount',
  'credit_discount_max',
  'client_run_time',
  'host_run_time',
  'total_cost',
] as const;
const INSTANCE_STR = [
  'intended_status',
  'cur_state',
  'next_state',
  'label',
  'template_hash_id',
  'template_name',
  'image_uuid',
  'image_runtype',
  'onstart',
  'jupyter_token',
  'status_msg',
  'local_ipaddrs',
  'ssh_host',
  'ssh_idx',
  'cpu_arch',
  'cpu_name',
  'gpu_name',
  'gpu_arch',
  'disk_name',
  'public_ipaddr',
  'geolocation',
  'verification',
  'os_version',
  'mobo_name',
  'logo',
  'webpage',
  'time_remaining',
  'time_remaining_isbid',
] as const;
const INSTANCE_BOOL = ['static_ip', 'rentable', 'is_bid', 'external'] as const;

function shapeOf<K extends string, S extends z.ZodMiniType>(keys: readonly K[], s: S): Record<K, S> {
  return Object.fromEntries(keys.map((k) => [k, s])) as Record<K, S>;
}

// z.object: the transform below keeps only these keys, so the others need not be copied.
const instanceWire = z.object({
  id: instanceId,
  actual_status: z.optional(z.nullable(z.unknown())),
  ...shapeOf(INSTANCE_NUM, lnum),
  ...shapeOf(INSTANCE_STR, lstr),
  ...shapeOf(INSTANCE_BOOL, lbool),
  image_args: lstrArray,
  extra_env: z.optional(z.unknown()),
  ports: z.optional(z.unknown()),
  search: pricing,
  instance: pricing,
});

export const instanceSchema = z.pipe(
  instanceWire,
  z.transform((w): Instance => {
    const out: Record<string, unknown> = {};
    for (const k of [...INSTANCE_NUM, ...INSTANCE_STR, ...INSTANCE_BOOL, 'image_args', 'search', 'instance'] as const) {
      const v = (w as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = v;
    }
    const actual = typeof w.actual_status === 'string' ? w.actual_status : null;
    const ports = normalizePorts(w.ports);
    const env = normalizeExtraEnv(w.extra_env);
    if (ports !== undefined) out.ports = ports;
    if (env !== undefined) out.extra_env = env;
    // Normalised once, here: every comparison (SSH entries, pinned host keys) sees the same host.
    for (const k of ['ssh_host', 'public_ipaddr'] as const) {
      const v = out[k];
      if (typeof v === 'string') {
        const t = v.trim();
        if (t) out[k] = t;
        else delete out[k];
      }
    }
    return {
      ...(out as Omit<Instance, 'id' | 'actual_status' | 'state'>),
      id: w.id,
      actual_status: actual,
      state: deriveState(actual, typeof w.intended_status === 'string' ? w.intended_status : undefined),
    };
  }),
);

/** v0 list `{instances_found, instances}` and v1 `{instances, next_token}`. */
// The two big lists are compiled (zod generates a specialised parser, same results): a refresh
// of 500 instances or 1,000 offers spends most of its time here.
export const instanceListSchema = z.compile(
  z.pipe(
    z.looseObject({ instances_found: lnum, instances: z.array(instanceSchema) }),
    z.transform((w): InstanceList => ({ instances_found: w.instances_found ?? w.instances.length, instances: w.instances })),
  ),
);

/** One page of the v1 list: `{instances, next_token, total_instances, label_counts, …}`. */
export const instancePageSchema = z.compile(
  z.pipe(
    z.looseObject({ instances: z.array(instanceSchema), next_token: z.optional(z.nullable(z.unknown())), total_instances: lnum }),
    z.transform((w) => ({
      instances: w.instances,
      next_token: typeof w.next_token === 'string' && w.next_token !== '' ? w.next_token : typeof w.next_token === 'number' ? String(w.next_token) : undefined,
      total_instances: typeof w.total_instances === 'number' ? w.total_instances : undefined,
    })),
  ),
);

/**
 * Show-instance: `{instances: Instance}` (also tolerates a one-element array or `instance`).
 * Yields null for the empty object (or empty array) the service sends for an unknown id.
 */
export const showInstanceSchema = z.pipe(
  z.looseObject({ instances: z.optional(z.unknown()), instance: z.optional(z.unknown()) }),
  z.transform((w, ctx): Instance | null => {
    let raw = w.instances ?? w.instance;
    if (Array.isArray(raw)) raw = raw[0];
    if (raw === undefined || raw === null || (typeof raw === 'object' && Object.keys(raw).length === 0)) return null;
    const r = z.safeParse(instanceSchema, raw);
    if (!r.success) {
      for (const i of r.error.issues) ctx.issues.push({ ...i, path: ['instances', ...i.path] } as never);
      return z.NEVER;
    }
    return r.data;
  }),
);

// ---------------------------------------------------------------- creation

export const createResultSchema = z.pipe(
  z.looseObject({ success: lbool, new_contract: instanceId, instance_api_key: lstr }),
  z.transform((w): CreateInstanceResult => ({
    success: w.success ?? true,
    new_contract: w.new_contract,
    ...(w.instance_api_key ? { instance_api_key: w.instance_api_key } : {}),
  })),
);
