// The contract between the API layer and everything above it. The zod schemas in
// schemas.ts parse the wire into these shapes; every layer above codes against them. The
// shapes of instances, offers and the account live in instanceTypes.ts, offerTypes.ts and
// accountTypes.ts; this module re-exports them so the contract has one import.
// No `vscode` import here or anywhere under src/api.
import type { BillingApi } from './billingTypes';
export type * from './billingTypes';
import type { SpendRateApi } from './spendRateApi';
import type { OverlayApi } from './overlayApi';
export type { Overlay } from './overlayApi';
export type { SpendRate } from './spendRateApi';
import type { Instance, InstanceList, InstanceFilter, CreateInstanceRequest, CreateInstanceResult } from './instanceTypes';
import type { Offer, OfferFilters, OfferQuery } from './offerTypes';
import type {
  User,
  TfaStatus,
  TfaVerification,
  TfaLoginRequest,
  TfaLoginResult,
  TfaRemoveRequest,
  TfaRemoveResult,
  TfaSendResult,
  TfaSmsRequest,
  TotpSetupResult,
  AuthorizeNewMethodRequest,
  AuthorizeNewMethodResult,
  ConfirmNewMethodRequest,
  ConfirmNewMethodResult,
  TfaUpdateRequest,
  TfaUpdateResult,
  RegenBackupCodesResult,
} from './accountTypes';
export type {
  InstanceState,
  PricingDetails,
  Instance,
  InstanceList,
  InstanceFilter,
  Runtype,
  VolumeInfo,
  CreateInstanceRequest,
  CreateInstanceResult,
} from './instanceTypes';
export type { Offer, SortField, FilterOp, FilterScalar, FilterValue, OfferFilters, OfferQuery } from './offerTypes';
export type {
  User,
  TfaMethodType,
  TfaVerifyMethod,
  TfaMethod,
  TfaStatus,
  TfaVerification,
  TfaLoginRequest,
  TfaLoginResult,
  TfaRemoveRequest,
  TfaRemoveResult,
  TfaSendResult,
  TfaSmsRequest,
  TotpSetupResult,
  AuthorizeNewMethodRequest,
  AuthorizeNewMethodResult,
  ConfirmNewMethodRequest,
  ConfirmNewMethodResult,
  TfaUpdateRequest,
  TfaUpdateResult,
  RegenBackupCodesResult,
} from './accountTypes';

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
export interface ServiceApi extends BillingApi, SpendRateApi, OverlayApi {
  /**
   * The secret values this client has seen (its key, expanded template secrets it sent, keys in
   * answers): for masking what is shown of a record, such as Show Instance Details' onstart.
   */
  knownSecrets?(): ReadonlyArray<string | undefined>;
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
  /**
   * Demo mode only: the utilisation (percent) the simulated instance's fake GPU reports from now
   * on, to its `nvidia-smi` (the idle guard's view) and in the list's `gpu_util`. The simulator's
   * POST /_sim/instances/{id}/gpu; the service has no such endpoint (it answers 404).
   */
  setDemoGpuLoad(id: number, util: number, o?: CallOptions): Promise<SimpleResult>;
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
