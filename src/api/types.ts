// The contract between the API layer and everything above it. The zod schemas in
// schemas.ts parse the wire into these shapes; every layer above codes against them.
// No `vscode` import here or anywhere under src/api.
import type { BillingApi } from './billingTypes';
export type * from './billingTypes';

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

/** Options of listInstances. */
export interface ListCallOptions extends CallOptions {
  /** Only the columns the views, costs and SSH entries need (default), or every column. */
  columns?: 'list' | 'all';
}

/** Options of showInstance. */
export interface ShowCallOptions extends CallOptions {
  /**
   * When the caller knows the instance was created recently (epoch ms): a 404/null within
   * the first minute then throws kind 'not_visible_yet' instead of "gone". Instances created
   * through this client are known without it.
   */
  createdAtMs?: number;
}

/** An offer (search result). Unknown fields are ignored. */
export interface Offer {
  id: number;
  num_gpus: number;
  gpu_name: string;
  dph_total: number;
  gpu_ram?: number | null; // MB
  gpu_totalram?: number | null; // MB
  reliability?: number | null; // fraction (reliability2 on the wire in some places)
  verified?: boolean | null;
  verification?: string | null;
  rentable?: boolean | null;
  direct_port_count?: number | null;
  geolocation?: string | null;
  dlperf?: number | null;
  dlperf_per_dphtotal?: number | null;
  score?: number | null;
  min_bid?: number | null;
  is_bid?: boolean | null;
  cpu_cores_effective?: number | null;
  cpu_name?: string | null;
  cpu_ram?: number | null;
  disk_space?: number | null;
  inet_down?: number | null;
  inet_up?: number | null;
  cuda_max_good?: number | null;
  machine_id?: number | null;
  host_id?: number | null;
  storage_cost?: number | null;
}

export type SortField = string;

/** Operators of the service's search filters. */
export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'notin';
export type FilterScalar = string | number | boolean;
export type FilterValue = FilterScalar | FilterScalar[];
/** The service's own search filters: field -> operator -> value, in wire units (MB, seconds). */
export type OfferFilters = Record<string, Partial<Record<FilterOp, FilterValue>>>;

/**
 * Offer search as callers think of it. GPU memory is in GB here; the client sends MB (×1000).
 * Numeric ranges use the spec's operators; the client builds the wire filter object.
 */
export interface OfferQuery {
  gpuNames?: string[]; // one -> {eq}, several -> {in}
  numGpus?: number; // exact
  minNumGpus?: number; // gte
  minGpuRamGb?: number;
  minReliability?: number; // fraction 0..1
  verified?: boolean; // default true
  rentable?: boolean; // default true
  minDirectPorts?: number;
  maxDphTotal?: number; // lte on dph_total
  offerId?: number; // one offer by id (eq): to read a preselected offer afresh
  type?: 'on-demand' | 'bid'; // default on-demand
  order?: Array<[SortField, 'asc' | 'desc']>; // default [['score','desc']]
  limit?: number;
  /**
   * The service's own filter object (from a CLI query or a script). When present it is the whole
   * filter: the friendly keys above and their defaults are not added (order, type and limit still apply).
   */
  filters?: OfferFilters;
  /** The CLI query text this search was parsed from (shown instead of a summary). */
  text?: string;
  /** Disk in GB the quoted dph_total includes (the service's allocated_storage). */
  allocatedStorage?: number;
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

export interface User {
  id: number;
  email?: string | null;
  /** The account balance: the seed's `credit`, or the live service's `balance`. */
  credit?: number | null;
  ssh_key?: string | null;
  /** The seed's `full_name`, or the live service's `fullname`. */
  full_name?: string | null;
  tfa_status?: 'enabled' | 'disabled' | 'legacy' | string | null;
  email_verified_at?: number | string | null;
}

export type TfaMethodType = 'sms' | 'totp';
export type TfaVerifyMethod = 'sms' | 'totp' | 'email';

export interface TfaMethod {
  id: number;
  user_id?: number;
  method: TfaMethodType | string;
  label?: string | null;
  phone_number?: string | null;
  is_primary?: boolean;
  fail_count?: number;
  locked_until?: number | null;
  created_at?: number | null;
  last_used?: number | null;
}

export interface TfaStatus {
  success?: boolean;
  tfa_enabled: boolean;
  methods: TfaMethod[];
  backup_codes_remaining: number;
  new_method_authorized: boolean;
}

/** How a 2FA step is verified: by a method's code, or by a backup code. */
export interface TfaVerification {
  tfa_method?: TfaVerifyMethod;
  code?: string;
  secret?: string;
  tfa_method_id?: number;
  backup_code?: string;
}

export interface TfaLoginRequest extends TfaVerification {
  admin?: boolean;
}
export interface TfaLoginResult extends User {
  /** Secret: never log or display. */
  session_key?: string;
  backup_codes_remaining?: number;
  legacy_tfa_user?: boolean;
}

export interface TfaRemoveRequest extends TfaVerification {
  target_id?: number;
}
export interface TfaRemoveResult {
  msg: string;
  remaining_methods?: number;
}

export interface TfaSendResult {
  success?: boolean;
  msg?: string;
  /** The challenge id (tfa_secret) to pass back on the completing call. */
  secret: string;
}

export interface TfaSmsRequest {
  phone_number?: string;
  tfa_method_id?: number;
  secret?: string;
}

export interface TotpSetupResult {
  /** Secret: never log. */
  secret: string;
  provisioning_uri: string;
}

export interface AuthorizeNewMethodRequest {
  tfa_method?: TfaVerifyMethod;
  tfa_method_id?: number;
  backup_code?: string;
}
export interface AuthorizeNewMethodResult {
  success: boolean;
  secret?: string;
  msg?: string;
}

export interface ConfirmNewMethodRequest {
  tfa_method: TfaMethodType;
  code: string;
  secret: string;
  phone_number?: string;
  label?: string;
}
export interface ConfirmNewMethodResult {
  success: boolean;
  msg: string;
  /** Secret: shown to the user once, never logged or stored. */
  backup_codes?: string[];
}

export interface TfaUpdateRequest {
  tfa_method_id?: number;
  tfa_method?: TfaMethodType;
  label?: string;
  is_primary?: boolean;
}
export interface TfaUpdateResult {
  success: boolean;
  msg: string;
  method?: Partial<TfaMethod> | null;
}

export interface RegenBackupCodesResult {
  msg: string;
  backup_codes: string[];
}

export interface SimpleResult {
  success?: boolean;
  msg?: string;
}

/** A public key registered on the account (GET/POST /api/v0/ssh/). */
export interface AccountSshKey {
  id: number;
  /** One OpenSSH public key line (the service calls the field `public_key` or `key`). */
  public_key: string;
  user_id?: number;
  /** Seconds since the epoch, when the service says. */
  created_at?: number;
  deleted_at?: number | null;
}

/** A public key attached to one instance (GET /api/v0/instances/{id}/ssh/). */
export interface InstanceSshKey {
  id: number;
  public_key: string;
  name?: string;
}

/** Per-call options: every call can be cancelled and has a timeout. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Milliseconds; defaults to the client's timeout. */
  timeoutMs?: number;
}

/** PUT /api/v0/instances/request_logs/{id}/: which log, how much of it. */
export interface LogRequest {
  /** The last N lines (the service's default is all it keeps). */
  tail?: number;
  /** Only lines matching this (a grep pattern, applied by the service). */
  filter?: string;
  /** The host daemon's log (image pull, container create/exit) instead of the container's. */
  daemonLogs?: boolean;
}

export interface LogRequestResult {
  /** Where the text appears once uploaded; a plain GET without credentials. */
  result_url: string;
  msg?: string;
}

/** Options of fetchLogs: the bounded wait while the upload has not landed (404). */
export interface LogFetchOptions extends CallOptions {
  /** GETs before giving up, default 30 (the official CLI's figure). */
  attempts?: number;
  /** Pause between GETs in ms, default 300. */
  intervalMs?: number;
  /** Injected pause (tests); default a timer that honours the signal. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A template kept by the service (GET /api/v0/template/), tolerantly parsed. */
export interface ServerTemplate {
  id: number;
  hash_id: string;
  name: string;
  /** Image without its tag. */
  image: string;
  tag?: string | null;
  /** Docker flags as the service stores them, e.g. "-p 8080:8080 -e NAME=value". */
  env?: string | null;
  onstart?: string | null;
  runtype?: string | null;
  args_str?: string | null;
  recommended?: boolean | null;
  recommended_disk_space?: number | null;
  desc?: string | null;
  count_created?: number | null;
  use_jupyter_lab?: boolean | null;
  jupyter_dir?: string | null;
  ssh_direct?: boolean | null;
  jup_direct?: boolean | null;
  use_ssh?: boolean | null;
  private?: boolean | null;
  creator_id?: number | null;
  docker_login_repo?: string | null;
}

/** GET /api/v0/template/ parameters. */
export interface TemplateSearch {
  /** select_filters, the search filter language: e.g. {"recommended": {"eq": true}}. */
  filters?: OfferFilters;
  /** select_cols, default all. */
  cols?: string[];
  /** order_by: a column, '-' in front for descending. */
  orderBy?: string;
}

/** Options of createInstance. */
export interface CreateCallOptions extends CallOptions {
  /**
   * Whether the offer is rented as interruptible (bid). When given, the request is validated
   * against it (price required for bid, forbidden for on-demand); when absent, a request with
   * `price` counts as interruptible.
   */
  interruptible?: boolean;
  /**
   * Secret values inside the request (expanded template secrets): registered for redaction
   * before the request is validated or sent, so a server that echoes them back (a 400 `msg`)
   * or a validation problem never shows them.
   */
  secrets?: readonly string[];
}

/**
 * Where the bearer token comes from. The extension backs this with SecretStorage
 * (API key, optionally a 2FA session key that takes precedence).
 */
export interface Credentials {
  /** The bearer token to send now, or undefined when signed out. */
  token(): string | undefined;
  /**
   * Called on a 401/403 auth_error. Returns true when the provider switched to other
   * credentials (for example dropped an expired 2FA session key and fell back to the
   * API key) so the request may be sent once more. Never called twice for one request.
   */
  onAuthFailure?(): boolean | Promise<boolean>;
}

/** Log sink. Every line the API layer writes goes through redact() first. */
export interface Logger {
  trace(msg: string): void;
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** The whole service, one method per endpoint of the spec. */
export interface ServiceApi extends BillingApi {
  /**
   * Every instance of the account: the live service's paged `GET /api/v1/instances/` (walked
   * page by page, ordered by id, deduplicated), or the v0 list on servers without v1.
   * By default only the list columns are asked for; showInstance gives the full record.
   */
  listInstances(o?: ListCallOptions): Promise<InstanceList>;
  /**
   * Instances matching a label or an id with one filtered request (v1), or by filtering the v0
   * list on servers without v1. Used to reconcile an ambiguous creation.
   */
  findInstances(filter: InstanceFilter, o?: CallOptions): Promise<Instance[]>;
  /**
   * The full record. A destroyed or unknown id throws kind 'http' status 404 code
   * 'no_such_instance', except within a minute of the instance's creation, when it throws kind
   * 'not_visible_yet' (the service shows new instances late; it is not gone).
   */
  showInstance(id: number, o?: ShowCallOptions): Promise<Instance>;
  /** PUT /instances/{id}/ {state}. */
  setInstanceState(id: number, state: 'running' | 'stopped', o?: CallOptions): Promise<SimpleResult>;
  /** PUT /instances/{id}/ {label}. */
  setInstanceLabel(id: number, label: string, o?: CallOptions): Promise<SimpleResult>;
  destroyInstance(id: number, o?: CallOptions): Promise<SimpleResult>;
  searchOffers(q: OfferQuery, o?: CallOptions): Promise<Offer[]>;
  /** Never retried. An ambiguous failure throws ApiError with kind 'ambiguous'. */
  createInstance(offerId: number, req: CreateInstanceRequest, o?: CreateCallOptions): Promise<CreateInstanceResult>;
  currentUser(o?: CallOptions): Promise<User>;

  /** Asks the service to upload an instance's log; the text is then at `result_url` (see fetchLogs). */
  requestLogs(id: number, req?: LogRequest, o?: CallOptions): Promise<LogRequestResult>;
  /**
   * GETs a result_url without credentials, waiting (bounded) while it is 404 until the upload
   * lands; the text comes back with every known secret masked.
   */
  fetchLogs(resultUrl: string, o?: LogFetchOptions): Promise<string>;
  /** Stop + start keeping the GPU; the instance reads `rebooting` meanwhile. */
  rebootInstance(id: number, o?: CallOptions): Promise<SimpleResult>;
  /** Recreates the container from a fresh image pull in place: everything on its disk is lost. */
  recycleInstance(id: number, o?: CallOptions): Promise<SimpleResult>;
  /** New bid ($/h) of an interruptible instance. */
  changeBid(id: number, price: number, o?: CallOptions): Promise<SimpleResult>;
  searchTemplates(q?: TemplateSearch, o?: CallOptions): Promise<ServerTemplate[]>;
  /** GET /ssh/: the account's public keys (a bare array or `{ssh_keys: [...]}`). */
  listSshKeys(o?: CallOptions): Promise<AccountSshKey[]>;
  /** POST /ssh/ {ssh_key}: registers one OpenSSH public key line. */
  addSshKey(publicKey: string, o?: CallOptions): Promise<AccountSshKey>;
  /** PUT /ssh/{id}/ {id, ssh_key}. */
  updateSshKey(id: number, publicKey: string, o?: CallOptions): Promise<AccountSshKey>;
  /** DELETE /ssh/{id}/. */
  deleteSshKey(id: number, o?: CallOptions): Promise<SimpleResult>;
  /** POST /instances/{id}/ssh/ {ssh_key}: lets one more key in to a running instance. */
  attachSshKey(instanceId: number, publicKey: string, o?: CallOptions): Promise<SimpleResult>;
  /** GET /instances/{id}/ssh/ (the service sends the list as a JSON-encoded string). */
  listInstanceSshKeys(instanceId: number, o?: CallOptions): Promise<InstanceSshKey[]>;
  /** DELETE /instances/{id}/ssh/{keyId}/. */
  detachSshKey(instanceId: number, keyId: number, o?: CallOptions): Promise<SimpleResult>;

  tfaStatus(o?: CallOptions): Promise<TfaStatus>;
  tfaLogin(req: TfaLoginRequest, o?: CallOptions): Promise<TfaLoginResult>;
  tfaRemove(req: TfaRemoveRequest, o?: CallOptions): Promise<TfaRemoveResult>;
  tfaSendEmail(req: { secret?: string }, o?: CallOptions): Promise<TfaSendResult>;
  tfaSendSms(req: TfaSmsRequest, o?: CallOptions): Promise<TfaSendResult>;
  tfaResendSms(req: TfaSmsRequest, o?: CallOptions): Promise<TfaSendResult>;
  tfaTotpSetup(o?: CallOptions): Promise<TotpSetupResult>;
  tfaAuthorizeNewMethod(req: AuthorizeNewMethodRequest, o?: CallOptions): Promise<AuthorizeNewMethodResult>;
  tfaAuthorizeNewMethodConfirm(req: { code: string; secret: string }, o?: CallOptions): Promise<SimpleResult>;
  tfaConfirmNew(req: ConfirmNewMethodRequest, o?: CallOptions): Promise<ConfirmNewMethodResult>;
  tfaUpdate(req: TfaUpdateRequest, o?: CallOptions): Promise<TfaUpdateResult>;
  tfaRegenBackupCodes(req: TfaVerification, o?: CallOptions): Promise<RegenBackupCodesResult>;
  /** Deprecated paths, still active on the service. */
  tfaTestDeprecated(req: TfaSmsRequest, o?: CallOptions): Promise<TfaSendResult>;
  tfaTestSubmitDeprecated(req: ConfirmNewMethodRequest, o?: CallOptions): Promise<ConfirmNewMethodResult>;
  tfaResendDeprecated(req: TfaSmsRequest, o?: CallOptions): Promise<TfaSendResult>;
}

/** What kind of failure an ApiError is. */
export type ApiErrorKind =
  | 'http' // the server answered with an error status
  | 'rate_limited' // 429
  | 'auth' // 401/403 auth_error (or missing key)
  | 'network' // connection refused/reset before any response, DNS, TLS
  | 'timeout'
  | 'aborted' // the caller cancelled
  | 'malformed' // the response did not match the schema / was not JSON
  | 'invalid_request' // rejected by validation before sending
  | 'ambiguous' // creation outcome unknown (timeout/reset after sending)
  | 'too_large' // the answer was larger than the transport reads (MAX_BODY_BYTES)
  | 'not_visible_yet'; // 404/null for an instance created less than a minute ago: not proof it is gone
