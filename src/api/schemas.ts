// zod/mini schemas: responses parsed tolerantly into the shapes of types.ts, requests
// validated strictly (every problem at once, each with its field path) before sending.
import * as z from 'zod/mini';

/** For the client, which loads this module (and zod) on its first request. */
export { safeParse } from 'zod/mini';
/** The billing calls' schemas (src/api/billingApi.ts) load with the rest. */
export * from './billingSchemas';
import { BACKUP_CODE_RE, E164_RE, OTP_RE, TFA_LABEL_MAX } from './tfaFormats';
import { parsePublicKeyLine } from './sshKeyFormat';
import type {
  AccountSshKey,
  InstanceSshKey,
  AuthorizeNewMethodResult,
  ConfirmNewMethodResult,
  CreateInstanceRequest,
  CreateInstanceResult,
  Instance,
  InstanceList,
  InstanceState,
  Offer,
  OfferQuery,
  PricingDetails,
  RegenBackupCodesResult,
  SimpleResult,
  TfaLoginResult,
  TfaMethod,
  TfaRemoveResult,
  TfaSendResult,
  TfaStatus,
  TfaUpdateResult,
  TotpSetupResult,
  User,
} from './types';

// ---------------------------------------------------------------- tolerant primitives

const numericString = z.pipe(
  z.string().check(z.refine((s) => s.trim() !== '' && Number.isFinite(Number(s)))),
  z.transform((s) => Number(s)),
);
/** A number, also when sent as a numeric string. */
const numberish = z.union([z.number(), numericString]);
/** A required id-like integer (number or numeric string). */
const requiredInt = z.pipe(numberish, z.number().check(z.int()));
/** Instance ids: the service numbers them from 1. A zero or negative id is a malformed answer. */
const instanceId = z.pipe(numberish, z.number().check(z.int(), z.positive()));

/** Optional + nullable; a value of the wrong type becomes undefined instead of failing the record. */
function lenient<T extends z.ZodMiniType>(s: T) {
  return z.catch(z.optional(z.nullable(s)), undefined);
}
/**
 * The same leniency for the ~90 plain fields of an instance or offer as one transform per field
 * instead of catch(optional(nullable(union(...)))): a list of 500 instances or 1,000 offers
 * parses about twice as fast (npm run bench, Scale row).
 */
function lenientBy<T>(accept: (v: unknown) => T | undefined) {
  return z.optional(z.transform((v: unknown): T | null | undefined => (v === null ? null : accept(v))));
}
const lnum = lenientBy((v) =>
  typeof v === 'number' ? (Number.isFinite(v) ? v : undefined) : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined,
);
const lstr = lenientBy((v) => (typeof v === 'string' ? v : undefined));
const lbool = lenientBy((v) => (typeof v === 'boolean' ? v : v === 0 || v === 1 ? v === 1 : undefined));
const lstrArray = lenient(z.array(z.string()));

const pricing = lenient(
  z.pipe(
    z.record(z.string(), z.unknown()),
    z.transform((r): PricingDetails => {
      const out: PricingDetails = {};
      for (const k of ['gpuCostPerHour', 'diskHour', 'totalHour', 'discountTotalHour', 'discountedTotalPerHour'] as const) {
        const p = z.safeParse(numberish, r[k]);
        if (p.success) out[k] = p.data;
      }
      return out;
    }),
  ),
);

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
  if (i === 'stopped' && (a === 'exited' || a === 'stopped' || a === 'offline' || a === 'unknown' || a == null || a === 'created'))
    return 'stopped';
  if (a === null || a === undefined || a === '' || a === 'created') return 'provisioning';
  if (a === 'stopped') return 'stopped';
  if (KNOWN_STATES.has(a)) return a as InstanceState;
  return 'unknown';
}

// ---------------------------------------------------------------- instance

const INSTANCE_NUM = [
  'template_id', 'ssh_port', 'machine_dir_ssh_port', 'machine_id', 'bundle_id', 'start_date', 'end_date', 'uptime_mins',
  'duration', 'cpu_cores', 'cpu_cores_effective', 'cpu_ram', 'cpu_util', 'mem_limit', 'mem_usage', 'vmem_usage',
  'gpu_totalram', 'gpu_ram', 'gpu_util', 'gpu_temp', 'gpu_frac', 'gpu_lanes', 'gpu_mem_bw', 'bw_nvlink', 'disk_space',
  'disk_bw', 'disk_util', 'disk_usage', 'direct_port_count', 'direct_port_start', 'direct_port_end', 'host_id',
  'hosting_type', 'min_bid', 'dph_base', 'dph_total', 'dlperf', 'dlperf_per_dphtotal', 'flops_per_dphtotal',
  'total_flops', 'score', 'reliability2', 'pci_gen', 'pcie_bw', 'num_gpus', 'storage_cost', 'storage_total_cost',
  'vram_costperhour', 'credit_balance', 'credit_discount', 'credit_discount_max', 'client_run_time', 'host_run_time',
  'total_cost',
] as const;
const INSTANCE_STR = [
  'intended_status', 'cur_state', 'next_state', 'label', 'template_hash_id', 'template_name', 'image_uuid',
  'image_runtype', 'onstart', 'jupyter_token', 'status_msg', 'local_ipaddrs', 'ssh_host', 'ssh_idx', 'cpu_arch',
  'cpu_name', 'gpu_name', 'gpu_arch', 'disk_name', 'public_ipaddr', 'geolocation', 'verification', 'os_version',
  'mobo_name', 'logo', 'webpage', 'time_remaining', 'time_remaining_isbid',
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

// ---------------------------------------------------------------- offers

export const offerSchema = z.pipe(
  // z.object, not looseObject: the transform keeps only these keys anyway, and not copying
  // the ~60 others an offer carries halves the parse time of a 1,000-offer list.
  z.object({
    id: requiredInt,
    num_gpus: requiredInt,
    gpu_name: z.string(),
    dph_total: numberish,
    gpu_ram: lnum,
    gpu_totalram: lnum,
    reliability: lnum,
    reliability2: lnum,
    verified: lbool,
    verification: lstr,
    rentable: lbool,
    direct_port_count: lnum,
    geolocation: lstr,
    dlperf: lnum,
    dlperf_per_dphtotal: lnum,
    score: lnum,
    min_bid: lnum,
    is_bid: lbool,
    cpu_cores_effective: lnum,
    cpu_name: lstr,
    cpu_ram: lnum,
    disk_space: lnum,
    inet_down: lnum,
    inet_up: lnum,
    cuda_max_good: lnum,
    machine_id: lnum,
    host_id: lnum,
    storage_cost: lnum,
  }),
  z.transform((w): Offer => {
    const { reliability2, ...rest } = w;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rest)) if (v !== undefined && k in offerKeys) out[k] = v;
    const o = out as unknown as Offer;
    if (o.reliability == null && reliability2 != null) o.reliability = reliability2;
    if (o.verified == null && typeof w.verification === 'string') o.verified = w.verification === 'verified';
    return o;
  }),
);
const offerKeys: Record<string, true> = Object.fromEntries(
  [
    'id', 'num_gpus', 'gpu_name', 'dph_total', 'gpu_ram', 'gpu_totalram', 'reliability', 'verified', 'verification',
    'rentable', 'direct_port_count', 'geolocation', 'dlperf', 'dlperf_per_dphtotal', 'score', 'min_bid', 'is_bid',
    'cpu_cores_effective', 'cpu_name', 'cpu_ram', 'disk_space', 'inet_down', 'inet_up', 'cuda_max_good', 'machine_id',
    'host_id', 'storage_cost',
  ].map((k) => [k, true]),
);

export const offerListSchema = z.compile(
  z.pipe(
    z.looseObject({ offers: z.array(offerSchema) }),
    z.transform((w): Offer[] => w.offers),
  ),
);

// ---------------------------------------------------------------- creation, user, simple

export const createResultSchema = z.pipe(
  z.looseObject({ success: lbool, new_contract: instanceId, instance_api_key: lstr }),
  z.transform(
    (w): CreateInstanceResult => ({
      success: w.success ?? true,
      new_contract: w.new_contract,
      ...(w.instance_api_key ? { instance_api_key: w.instance_api_key } : {}),
    }),
  ),
);

const userShape = {
  id: lnum,
  email: lstr,
  credit: lnum,
  balance: lnum,
  ssh_key: lstr,
  full_name: lstr,
  fullname: lstr,
  tfa_status: lstr,
  email_verified_at: lenient(z.union([z.number(), z.string()])),
};
function userFrom(w: Record<string, unknown>): User {
  const u: Record<string, unknown> = {};
  for (const k of Object.keys(userShape)) if (w[k] !== undefined && k !== 'balance' && k !== 'fullname') u[k] = w[k];
  u.id = typeof w.id === 'number' ? w.id : 0;
  // The live service's names (balance, fullname) beside the seed's (credit, full_name).
  if (typeof u.credit !== 'number' && typeof w.balance === 'number') u.credit = w.balance;
  if (typeof u.full_name !== 'string' && typeof w.fullname === 'string') u.full_name = w.fullname;
  return u as unknown as User;
}

export const userSchema = z.pipe(z.looseObject(userShape), z.transform((w): User => userFrom(w)));

export const tfaLoginResultSchema = z.pipe(
  z.looseObject({ ...userShape, session_key: lstr, backup_codes_remaining: lnum, legacy_tfa_user: lbool }),
  z.transform((w): TfaLoginResult => {
    const r: TfaLoginResult = userFrom(w);
    if (w.session_key) r.session_key = w.session_key;
    if (typeof w.backup_codes_remaining === 'number') r.backup_codes_remaining = w.backup_codes_remaining;
    if (w.legacy_tfa_user === true) r.legacy_tfa_user = true;
    return r;
  }),
);

export const simpleResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr }),
  z.transform((w): SimpleResult => {
    const r: SimpleResult = {};
    if (typeof w.success === 'boolean') r.success = w.success;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);

// ---------------------------------------------------------------- SSH keys

/** A time as seconds since the epoch: a number, a numeric string or a date string. */
const epochish = lenientBy((v) => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string' || !v.trim()) return undefined;
  if (Number.isFinite(Number(v))) return Number(v);
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
});

/** One account key; the key text arrives as `public_key` or `key` depending on the version. */
export const accountSshKeySchema = z.pipe(
  z.looseObject({ id: requiredInt, user_id: lnum, public_key: lstr, key: lstr, ssh_key: lstr, created_at: epochish, deleted_at: epochish }),
  z.transform((w, ctx): AccountSshKey => {
    const text = w.public_key ?? w.key ?? w.ssh_key;
    if (typeof text !== 'string') {
      ctx.issues.push({ code: 'custom', input: w, path: ['public_key'], message: 'missing key text' });
      return z.NEVER;
    }
    const k: AccountSshKey = { id: w.id, public_key: text.trim() };
    if (typeof w.user_id === 'number') k.user_id = w.user_id;
    if (typeof w.created_at === 'number') k.created_at = w.created_at;
    if (w.deleted_at !== undefined) k.deleted_at = w.deleted_at;
    return k;
  }),
);

/** A bare array, or `{ssh_keys: [...]}` (some versions); deleted keys are left out. */
export const accountSshKeyListSchema = z.pipe(
  z.union([z.array(z.unknown()), z.looseObject({ ssh_keys: z.array(z.unknown()) }), z.looseObject({ keys: z.array(z.unknown()) })]),
  z.transform((w, ctx): AccountSshKey[] => {
    const rows: unknown[] = Array.isArray(w) ? w : 'ssh_keys' in w ? (w.ssh_keys as unknown[]) : (w as { keys: unknown[] }).keys;
    const out: AccountSshKey[] = [];
    rows.forEach((row, i) => {
      const r = z.safeParse(accountSshKeySchema, row);
      if (!r.success) {
        for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: [i, ...issue.path] } as never);
        return;
      }
      if (r.data.deleted_at == null) out.push(r.data);
    });
    return out;
  }),
);

/** `{success, key: {...}}` (also a bare key record). */
export const accountSshKeyResultSchema = z.pipe(
  z.looseObject({ key: z.optional(z.unknown()), ssh_key: z.optional(z.unknown()) }),
  z.transform((w, ctx): AccountSshKey => {
    const raw = w.key && typeof w.key === 'object' ? w.key : w.ssh_key && typeof w.ssh_key === 'object' ? w.ssh_key : w;
    const r = z.safeParse(accountSshKeySchema, raw);
    if (!r.success) {
      for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: ['key', ...issue.path] } as never);
      return z.NEVER;
    }
    return r.data;
  }),
);

const instanceSshKeyRow = z.pipe(
  z.looseObject({ id: requiredInt, name: lstr, public_key: lstr, key: lstr, ssh_key: lstr }),
  z.transform((w, ctx): InstanceSshKey => {
    const text = w.public_key ?? w.key ?? w.ssh_key;
    if (typeof text !== 'string') {
      ctx.issues.push({ code: 'custom', input: w, path: ['public_key'], message: 'missing key text' });
      return z.NEVER;
    }
    return { id: w.id, public_key: text.trim(), ...(w.name ? { name: w.name } : {}) };
  }),
);

/** `{success, ssh_keys: "<JSON text of [{id, name, public_key}]>"}`; a real array is accepted too. */
export const instanceSshKeyListSchema = z.pipe(
  z.looseObject({ ssh_keys: z.union([z.string(), z.array(z.unknown()), z.null()]) }),
  z.transform((w, ctx): InstanceSshKey[] => {
    let rows: unknown = w.ssh_keys ?? [];
    if (typeof rows === 'string') {
      try {
        rows = rows.trim() ? JSON.parse(rows) : [];
      } catch {
        ctx.issues.push({ code: 'custom', input: w.ssh_keys, path: ['ssh_keys'], message: 'not JSON' });
        return z.NEVER;
      }
    }
    const r = z.safeParse(z.array(instanceSshKeyRow), rows);
    if (!r.success) {
      for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: ['ssh_keys', ...issue.path] } as never);
      return z.NEVER;
    }
    return r.data;
  }),
);

/** The body of the key calls: exactly one OpenSSH public key line (never a private key). */
export const sshKeyRequestSchema = z.looseObject({
  ssh_key: z.string('must be a string').check(
    z.refine((t) => !/PRIVATE KEY/.test(t), 'is a private key; send the public key (the .pub file) instead'),
    z.refine((t) => /PRIVATE KEY/.test(t) || !!parsePublicKeyLine(t), 'must be one OpenSSH public key line, like "ssh-ed25519 AAAA… comment"'),
  ),
});

// ---------------------------------------------------------------- 2FA responses

export const tfaMethodSchema = z.pipe(
  z.looseObject({
    id: requiredInt,
    user_id: lnum,
    method: z.catch(z.string(), 'unknown'),
    label: lstr,
    phone_number: lstr,
    is_primary: lbool,
    fail_count: lnum,
    locked_until: lnum,
    created_at: lnum,
    last_used: lnum,
  }),
  z.transform((w): TfaMethod => {
    const m: TfaMethod = { id: w.id, method: w.method };
    if (w.user_id != null) m.user_id = w.user_id;
    if (w.label !== undefined) m.label = w.label;
    if (w.phone_number !== undefined) m.phone_number = w.phone_number;
    if (w.is_primary != null) m.is_primary = w.is_primary;
    if (w.fail_count != null) m.fail_count = w.fail_count;
    if (w.locked_until !== undefined) m.locked_until = w.locked_until;
    if (w.created_at !== undefined) m.created_at = w.created_at;
    if (w.last_used !== undefined) m.last_used = w.last_used;
    return m;
  }),
);

export const tfaStatusSchema = z.pipe(
  z.looseObject({
    success: lbool,
    tfa_enabled: lbool,
    methods: z.catch(z.optional(z.nullable(z.array(tfaMethodSchema))), undefined),
    backup_codes_remaining: lnum,
    new_method_authorized: lbool,
  }),
  z.transform(
    (w): TfaStatus => ({
      ...(typeof w.success === 'boolean' ? { success: w.success } : {}),
      tfa_enabled: w.tfa_enabled ?? false,
      methods: w.methods ?? [],
      backup_codes_remaining: w.backup_codes_remaining ?? 0,
      new_method_authorized: w.new_method_authorized ?? false,
    }),
  ),
);

export const tfaSendResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, secret: z.string().check(z.minLength(1)) }),
  z.transform((w): TfaSendResult => {
    const r: TfaSendResult = { secret: w.secret };
    if (typeof w.success === 'boolean') r.success = w.success;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);

export const totpSetupSchema = z.pipe(
  z.looseObject({ secret: z.string().check(z.minLength(1)), provisioning_uri: z.string() }),
  z.transform((w): TotpSetupResult => ({ secret: w.secret, provisioning_uri: w.provisioning_uri })),
);

export const authorizeNewMethodResultSchema = z.pipe(
  z.looseObject({ success: lbool, secret: lstr, msg: lstr }),
  z.transform((w): AuthorizeNewMethodResult => {
    const r: AuthorizeNewMethodResult = { success: w.success ?? true };
    if (w.secret) r.secret = w.secret;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);

export const confirmNewResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, backup_codes: lstrArray }),
  z.transform((w): ConfirmNewMethodResult => {
    const r: ConfirmNewMethodResult = { success: w.success ?? true, msg: w.msg ?? '' };
    if (w.backup_codes) r.backup_codes = w.backup_codes;
    return r;
  }),
);

export const tfaUpdateResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, method: z.optional(z.unknown()) }),
  z.transform((w): TfaUpdateResult => {
    const r: TfaUpdateResult = { success: w.success ?? true, msg: w.msg ?? '' };
    if (w.method === null) r.method = null;
    else if (w.method && typeof w.method === 'object') {
      const p = z.safeParse(tfaMethodSchema, w.method);
      r.method = p.success ? p.data : (w.method as Partial<TfaMethod>);
    }
    return r;
  }),
);

export const tfaRemoveResultSchema = z.pipe(
  z.looseObject({ msg: lstr, remaining_methods: lnum }),
  z.transform((w): TfaRemoveResult => {
    const r: TfaRemoveResult = { msg: w.msg ?? '' };
    if (typeof w.remaining_methods === 'number') r.remaining_methods = w.remaining_methods;
    return r;
  }),
);

export const regenBackupCodesSchema = z.pipe(
  z.looseObject({ msg: lstr, backup_codes: z.array(z.string()) }),
  z.transform((w): RegenBackupCodesResult => ({ msg: w.msg ?? '', backup_codes: w.backup_codes })),
);

// ---------------------------------------------------------------- request validation

export const ONSTART_MAX = 4048;
export const RUNTYPES = ['ssh', 'ssh_direct', 'ssh_proxy', 'jupyter', 'jupyter_direct', 'jupyter_proxy', 'args'] as const;
/** Tokens of the CLI's space-separated runtype form (`ssh_direc ssh_proxy`), which the service also accepts. */
const RUNTYPE_TOKENS: ReadonlySet<string> = new Set([...RUNTYPES, 'ssh_direc', 'jupyter_direc']);

const PORT_KEY_RE = /^-p\s+(\d{1,5}):(\d{1,5})(\/(tcp|udp))?$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const MSG = {
  code: 'must be the 6-digit code (digits only, no spaces)',
  backup: 'must be a backup code in the form XXXX-XXXX-XXXX',
  phone: 'must be in international E.164 format, for example +14155550123 (no spaces or dashes)',
  label: `must be at most ${TFA_LABEL_MAX} characters`,
  method: "must be 'sms', 'totp' or 'email'",
  newMethod: "must be 'sms' or 'totp' (e-mail cannot be added as a method)",
  id: 'must be a positive whole number',
};

const code6 = z.string(MSG.code).check(z.regex(OTP_RE, MSG.code));
const backupCode = z.string(MSG.backup).check(z.regex(BACKUP_CODE_RE, MSG.backup));
const phone = z.string(MSG.phone).check(z.regex(E164_RE, MSG.phone));
const tfaLabel = z.string().check(z.maxLength(TFA_LABEL_MAX, MSG.label));
const methodId = z.number(MSG.id).check(z.int(MSG.id), z.positive(MSG.id));
const verifyMethod = z.enum(['sms', 'totp', 'email'], MSG.method);
const newMethod = z.enum(['sms', 'totp'], MSG.newMethod);
const nonEmpty = z.string().check(z.minLength(1, 'must not be empty'));

const verificationShape = {
  tfa_method: z.optional(verifyMethod),
  code: z.optional(code6),
  secret: z.optional(nonEmpty),
  tfa_method_id: z.optional(methodId),
  backup_code: z.optional(backupCode),
};
/** With a backup code no method code is needed; otherwise a 6-digit code is. */
function needsCodeOrBackup(v: { code?: string; backup_code?: string }): boolean {
  return v.code !== undefined || v.backup_code !== undefined;
}
const codeOrBackup = z.refine<{ code?: string; backup_code?: string }>(needsCodeOrBackup, {
  message: 'give either the 6-digit code or a backup code',
  path: ['code'],
});

export const tfaVerificationSchema = z.strictObject(verificationShape).check(codeOrBackup);
export const tfaLoginRequestSchema = z.strictObject({ ...verificationShape, admin: z.optional(z.boolean()) }).check(codeOrBackup);
export const tfaRemoveRequestSchema = z
  .strictObject({ ...verificationShape, target_id: z.optional(methodId) })
  .check(
    codeOrBackup,
    z.refine((v) => v.backup_code === undefined || v.target_id !== undefined, {
      message: 'is required when removing with a backup code (the id of the method to remove)',
      path: ['target_id'],
    }),
  );
export const tfaEmailRequestSchema = z.strictObject({ secret: z.optional(nonEmpty) });
export const tfaSmsRequestSchema = z.strictObject({
  phone_number: z.optional(phone),
  tfa_method_id: z.optional(methodId),
  secret: z.optional(nonEmpty),
});
export const authorizeNewMethodRequestSchema = z.strictObject({
  tfa_method: z.optional(verifyMethod),
  tfa_method_id: z.optional(methodId),
  backup_code: z.optional(backupCode),
});
export const authorizeConfirmRequestSchema = z.strictObject({ code: code6, secret: nonEmpty });
export const confirmNewRequestSchema = z
  .strictObject({
    tfa_method: newMethod,
    code: code6,
    secret: nonEmpty,
    phone_number: z.optional(phone),
    label: z.optional(tfaLabel),
  })
  .check(
    z.refine((v) => v.tfa_method !== 'sms' || v.phone_number !== undefined, {
      message: 'is required for an SMS method',
      path: ['phone_number'],
    }),
  );
export const tfaUpdateRequestSchema = z
  .strictObject({
    tfa_method_id: z.optional(methodId),
    tfa_method: z.optional(newMethod),
    label: z.optional(tfaLabel),
    is_primary: z.optional(z.boolean()),
  })
  .check(
    z.refine((v) => v.tfa_method_id !== undefined || v.tfa_method !== undefined, {
      message: 'give the method id (or its type when you have only one of that type)',
      path: ['tfa_method_id'],
    }),
  );

/** Formats zod issues as "path: message" strings. */
export function formatIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: string[] }>): string[] {
  return issues.map((i) => {
    if (i.code === 'unrecognized_keys' && i.keys) return `${i.keys.join(', ')}: not a field of this request`;
    const p = i.path.map(String).join('.');
    return p ? `${p}: ${i.message}` : i.message;
  });
}

/** Validates a request body with a schema; returns problems (empty when valid). */
export function validateWith(schema: z.ZodMiniType, value: unknown): string[] {
  const r = z.safeParse(schema, stripNulls(value));
  return r.success ? [] : formatIssues(r.error.issues as never);
}

/** `null` means "not given" on this service (the official CLI sends nulls); drop those keys. */
export function stripNulls<T>(v: T): T {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null && x !== undefined)) as T;
}

const createTypes = z.looseObject({
  image: z.optional(z.string('must be a string (the container image, e.g. pytorch/pytorch:latest)')),
  template_hash_id: z.optional(z.string('must be a string (the template hash id)')),
  label: z.optional(z.string('must be a string')),
  disk: z.optional(z.number('must be a number of GB')),
  runtype: z.optional(z.string('must be a string')),
  target_state: z.optional(z.enum(['running', 'stopped'], "must be 'running' or 'stopped'")),
  price: z.optional(z.number('must be a number of dollars per hour')),
  env: z.optional(z.unknown()),
  onstart: z.optional(z.string('must be a string (shell commands)')),
  args_str: z.optional(z.string('must be a string')),
  use_jupyter_lab: z.optional(z.boolean('must be true or false')),
  jupyter_dir: z.optional(z.string('must be a string')),
  python_utf8: z.optional(z.boolean('must be true or false')),
  lang_utf8: z.optional(z.boolean('must be true or false')),
  image_login: z.optional(z.string('must be a string of registry flags')),
  cancel_unavail: z.optional(z.boolean('must be true or false')),
  vm: z.optional(z.boolean('must be true or false')),
  volume_info: z.optional(z.unknown()),
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function envProblems(env: unknown): string[] {
  const out: string[] = [];
  if (typeof env === 'string')
    return [
      'env: must be an object like {"NAME": "value"}, not a string of flags; write each variable as its own key (the "-e NAME=value" form is for templates, not for this field)',
    ];
  if (Array.isArray(env)) return ['env: must be an object like {"NAME": "value"}, not an array'];
  if (!isRecord(env)) return ['env: must be an object like {"NAME": "value"}'];
  for (const [key, value] of Object.entries(env)) {
    const k = key.trim();
    // JSON-quoted: a key with a quote or a control character stays one readable, parseable path.
    const path = `env[${JSON.stringify(key)}]`;
    if (k.startsWith('-e ') || k.startsWith('-e=') || /^--env[ =]/.test(k)) {
      out.push(`${path}: looks like a flag string "-e NAME=value"; use the variable name as the key and its value as the value, e.g. {"NAME": "value"}`);
      continue;
    }
    if (k.startsWith('-p')) {
      const m = PORT_KEY_RE.exec(k);
      if (!m) out.push(`${path}: a port mapping key must look like "-p 8080:8080" (host:container)`);
      else if (Number(m[1]) > 65535 || Number(m[2]) > 65535 || Number(m[1]) < 1 || Number(m[2]) < 1)
        out.push(`${path}: port numbers must be between 1 and 65535`);
      if (value !== '1') out.push(`${path}: a port mapping must have the value "1" (the string), not ${JSON.stringify(value)}`);
      continue;
    }
    if (k.startsWith('-')) {
      out.push(`${path}: flag-style keys are not allowed here; only "-p host:container" port mappings and variable names`);
      continue;
    }
    if (k.includes('=')) {
      out.push(`${path}: a variable name cannot contain "="; use {"NAME": "value"} instead of "NAME=value"`);
      continue;
    }
    if (!ENV_NAME_RE.test(k)) out.push(`${path}: not a valid variable name (letters, digits and _; not starting with a digit)`);
    if (typeof value !== 'string') out.push(`${path}: the value must be a string (wrap numbers and booleans in quotes)`);
  }
  return out;
}

function runtypeProblem(runtype: string): string | undefined {
  const tokens = runtype.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === 0 || tokens.some((t) => !RUNTYPE_TOKENS.has(t)))
    return `runtype: unknown launch mode "${runtype}"; use one of ${RUNTYPES.join(', ')}`;
  if (tokens.length > 1 && tokens.includes('args')) return 'runtype: "args" cannot be combined with other launch modes';
  return undefined;
}

/**
 * Every problem of a creation request at once, each prefixed with its field path. `interruptible`
 * says whether the caller rents a bid (interruptible) offer: then `price` is required, and it must
 * be absent for on-demand. Empty array = valid. The template layer reuses this.
 */
export function validateCreateRequest(req: CreateInstanceRequest | Record<string, unknown>, opts: { interruptible: boolean }): string[] {
  if (!isRecord(req)) return ['the creation request must be an object'];
  const r = stripNulls(req as Record<string, unknown>);
  const problems = validateWith(createTypes, r);
  const has = (k: string) => r[k] !== undefined;

  const image = typeof r.image === 'string' ? r.image.trim() : '';
  const tpl = typeof r.template_hash_id === 'string' ? r.template_hash_id.trim() : '';
  if (!image && !tpl) problems.push('image: required unless template_hash_id is given (the container image to run)');

  if (typeof r.onstart === 'string' && r.onstart.length > ONSTART_MAX)
    problems.push(`onstart: ${r.onstart.length} characters, the service allows at most ${ONSTART_MAX}; move the script into the image or compress and encode it`);

  if (has('env')) problems.push(...envProblems(r.env));

  if (typeof r.runtype === 'string') {
    const p = runtypeProblem(r.runtype);
    if (p) problems.push(p);
  }
  if (has('args_str') && !(typeof r.runtype === 'string' && r.runtype.trim() === 'args'))
    problems.push('args_str: is used only with runtype "args"; set runtype to "args" or remove args_str');

  if (typeof r.disk === 'number' && !(Number.isFinite(r.disk) && r.disk > 0))
    problems.push('disk: must be more than 0 GB (the default is 8)');

  if (opts.interruptible) {
    if (!has('price'))
      problems.push('price: required for an interruptible (bid) instance; without it the service silently rents on-demand');
    else if (typeof r.price === 'number' && !(Number.isFinite(r.price) && r.price > 0))
      problems.push('price: the bid must be more than 0 dollars per hour');
  } else if (has('price')) {
    problems.push('price: only for interruptible (bid) instances; remove it for an on-demand instance');
  }

  if (has('volume_info')) {
    const v = r.volume_info;
    if (!isRecord(v)) problems.push('volume_info: must be an object {volume_id, mount_path}');
    else {
      if (!(typeof v.volume_id === 'number' && Number.isInteger(v.volume_id) && v.volume_id > 0))
        problems.push('volume_info.volume_id: required, the id of an existing volume (a positive whole number)');
      if (!(typeof v.mount_path === 'string' && v.mount_path.startsWith('/')))
        problems.push('volume_info.mount_path: required, an absolute path inside the instance such as /workspace/data');
    }
  }
  return problems;
}

// ---------------------------------------------------------------- offer search body

export interface OfferSearchWire {
  [key: string]: unknown;
}

const FILTER_OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin']);
const FILTER_FIELD = /^[a-z_][a-z0-9_]*$/;
const FRIENDLY_FILTER_KEYS = ['gpuNames', 'numGpus', 'minNumGpus', 'minGpuRamGb', 'minReliability', 'verified', 'rentable', 'minDirectPorts', 'maxDphTotal'] as const;

function filterProblems(filters: unknown): string[] {
  if (!filters || typeof filters !== 'object' || Array.isArray(filters)) return ['filters: must be an object of field: {operator: value}'];
  const p: string[] = [];
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
  for (const [field, spec] of Object.entries(filters as Record<string, unknown>)) {
    if (!FILTER_FIELD.test(field)) {
      p.push(`filters.${field}: not a field name (lower-case letters, digits and _)`);
      continue;
    }
    if (!spec || typeof spec !== 'object' || Array.isArray(spec) || !Object.keys(spec).length) {
      p.push(`filters.${field}: must be an object such as {"gte": 2}`);
      continue;
    }
    for (const [op, v] of Object.entries(spec as Record<string, unknown>)) {
      if (!FILTER_OPS.has(op)) p.push(`filters.${field}.${op}: unknown operator (use eq, neq, gt, gte, lt, lte, in or notin)`);
      else if (op === 'in' || op === 'notin') {
        if (!Array.isArray(v) || !v.length || !v.every(scalar)) p.push(`filters.${field}.${op}: must be a non-empty list of values`);
      } else if (!scalar(v)) p.push(`filters.${field}.${op}: must be a number, string or true/false`);
    }
  }
  return p;
}

/** Problems of an OfferQuery (empty when valid). */
export function validateOfferQuery(q: OfferQuery): string[] {
  const p: string[] = [];
  const nonNeg = (v: unknown, name: string) => {
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) p.push(`${name}: must be a number of 0 or more`);
  };
  nonNeg(q.minGpuRamGb, 'minGpuRamGb');
  nonNeg(q.maxDphTotal, 'maxDphTotal');
  nonNeg(q.minDirectPorts, 'minDirectPorts');
  nonNeg(q.allocatedStorage, 'allocatedStorage');
  for (const [k, v] of [['numGpus', q.numGpus], ['minNumGpus', q.minNumGpus], ['limit', q.limit], ['offerId', q.offerId]] as const)
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) p.push(`${k}: must be a positive whole number`);
  if (q.minReliability !== undefined && !(q.minReliability >= 0 && q.minReliability <= 1))
    p.push('minReliability: must be a fraction between 0 and 1 (for example 0.98)');
  if (q.type !== undefined && q.type !== 'on-demand' && q.type !== 'bid') p.push("type: must be 'on-demand' or 'bid'");
  if (q.gpuNames && q.gpuNames.some((n) => typeof n !== 'string' || !n.trim())) p.push('gpuNames: names must be non-empty');
  if (q.order && q.order.some((o) => !Array.isArray(o) || typeof o[0] !== 'string' || (o[1] !== 'asc' && o[1] !== 'desc')))
    p.push("order: each entry must be [field, 'asc' | 'desc']");
  if (q.filters !== undefined) {
    p.push(...filterProblems(q.filters));
    const mixed = FRIENDLY_FILTER_KEYS.filter((k) => q[k] !== undefined);
    if (mixed.length) p.push(`filters: cannot be combined with ${mixed.join(', ')}; put every condition in filters`);
  }
  return p;
}

/** OfferQuery (GB, friendly names) -> the search body of POST /api/v0/bundles/. */
export function offerQueryToWire(q: OfferQuery): OfferSearchWire {
  let w: OfferSearchWire;
  if (q.filters) {
    // The service's own filter object is the whole filter: nothing implied is added.
    w = Object.fromEntries(Object.entries(q.filters).map(([f, spec]) => [f, { ...spec }]));
  } else {
    w = {
      verified: { eq: q.verified ?? true },
      rentable: { eq: q.rentable ?? true },
      external: { eq: false },
    };
    const names = (q.gpuNames ?? []).map((n) => n.trim()).filter(Boolean);
    if (names.length === 1) w.gpu_name = { eq: names[0] };
    else if (names.length > 1) w.gpu_name = { in: names };
    if (q.numGpus !== undefined) w.num_gpus = { eq: q.numGpus };
    else if (q.minNumGpus !== undefined) w.num_gpus = { gte: q.minNumGpus };
    // The service takes MB; GB are decimal here as in the official CLI.
    if (q.minGpuRamGb !== undefined) w.gpu_ram = { gte: Math.round(q.minGpuRamGb * 1000) };
    if (q.minReliability !== undefined) w.reliability = { gte: q.minReliability };
    if (q.minDirectPorts !== undefined) w.direct_port_count = { gte: q.minDirectPorts };
    if (q.maxDphTotal !== undefined) w.dph_total = { lte: q.maxDphTotal };
  }
  if (q.offerId !== undefined) w.id = { eq: q.offerId };
  w.order = q.order && q.order.length ? q.order.map(([f, d]) => [f, d]) : [['score', 'desc']];
  w.type = q.type ?? 'on-demand';
  if (q.limit !== undefined) w.limit = q.limit;
  if (q.allocatedStorage !== undefined) w.allocated_storage = q.allocatedStorage;
  return w;
}

export { logRequestResultSchema, templateListSchema } from './opsSchemas';
