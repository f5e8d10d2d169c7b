// All mutable state of one simulator: the clock, the catalogue, instances, the account,
// 2FA records, injected faults and the request log. Plain data so tests can inspect it.
import { randomBytes } from 'node:crypto';
import { generateOffers, type OfferRecord } from './offers';
import { recordUsage } from './billing';

export interface SimConfig {
  host: string;
  port: number;
  apiKey: string;
  readOnlyKey: string;
  bootSeconds: number;
  seed: number;
  offers: number;
  instances: number;
  testControl: boolean;
  /** Demo mode: GET /_sim/inbox shows the codes "sent" (the demo has no real e-mail or phone). */
  demoInbox?: boolean;
  /** Wall-clock ms a requested log stays 404 at its result_url before the upload "lands". */
  logDelayMs?: number;
  ssh: boolean;
  /** Which service the simulator plays: the live one (`today`) or service-api.md (`seed`). */
  era: Era;
  /** Today era: seconds a new instance stays invisible to show and list (read-after-create lag). */
  invisibleSeconds: number;
  /** Minimum seconds between two calls of an endpoint by one key; 0 = no limit. */
  rateLimits: RateLimits;
  /**
   * The demo's locks (another local process must not use the demo): the key only in the
   * Authorization header (tests may still send the legacy `?api_key=`), and a body only as JSON
   * with a JSON content type (415 otherwise: a web page cannot post a "simple" text/plain request).
   */
  demoLock: boolean;
  /** Demo mode: of an onstart only the idle guard runs, as this copy of the watchdog (src/sim/guardOnly.ts). */
  guardOnly?: { script: string };
}

export type Era = 'today' | 'seed';
export const ERAS: readonly Era[] = ['today', 'seed'];

/** The endpoints the service rate-limits (service-today.md section 9). */
export type LimitedEndpoint = 'show' | 'list' | 'update' | 'destroy' | 'create' | 'search';
export type RateLimits = Record<LimitedEndpoint, number>;

/** The service's documented thresholds, read as minimum seconds between calls (search: 10 per minute). */
export const SERVICE_RATE_LIMITS: Readonly<RateLimits> = { show: 2.0, list: 1.0, update: 1.0, destroy: 3.0, create: 4.5, search: 6.0 };
export const NO_RATE_LIMITS: Readonly<RateLimits> = { show: 0, list: 0, update: 0, destroy: 0, create: 0, search: 0 };
/** After a 429 on create the service makes the caller wait this long (its documented penalty). */
export const CREATE_PENALTY_SECONDS = 12;

export interface SimTemplate {
  id: number;
  hash_id: string;
  name: string;
  image: string;
  env: Record<string, string>;
  onstart: string;
  runtype: string;
  args_str?: string;
  disk: number;
  jupyter_dir?: string;
  use_jupyter_lab?: boolean;
  docker_login_repo?: string;
  docker_login_user?: string;
  docker_login_pass?: string;
  /** On the service's recommended list (the console shows these first). */
  recommended?: boolean;
  description?: string;
  count_created?: number;
}

export interface SimInstance {
  id: number;
  offer: OfferRecord;
  label: string | null;
  image: string;
  runtype: string[]; // canonical tokens: ssh_direct, ssh_proxy, jupyter_direct, jupyter_proxy, args
  env: Record<string, string>;
  onstart: string | null;
  argsStr: string | null;
  disk: number;
  intended: 'running' | 'stopped';
  /** Sim time the current boot started (creation or restart). */
  bootStart: number;
  bootSeconds: number;
  restarts: number;
  /** Injected terminal state ('exited' | 'unknown' | 'offline' | any wire value); sticks until destroyed. */
  failure: string | null;
  createdAt: number;
  isBid: boolean;
  price: number | null;
  apiKey: string;
  jupyterToken: string | null;
  template: SimTemplate | null;
  dockerLogin: { repo?: string; user?: string; pass?: string; imageLogin?: string } | null;
  useJupyterLab: boolean;
  jupyterDir: string | null;
  vm: boolean;
  volume: { volume_id: number; mount_path: string } | null;
  totalCost: number;
  storageTotal: number;
  everStarted: boolean;
  /** Created stopped because the machine could not be scheduled (today era, cancel_unavail false). */
  unscheduled?: boolean;
  /** Sim time before which show and list do not show this instance (injected late visibility). */
  visibleAt?: number;
  /** Utilisation per GPU in percent, set by tests (/_sim/instances/{id}/gpu); undefined reads as idle. */
  gpuUtil?: number[];
  /** Sim time a reboot ends ('rebooting' until then). */
  rebootUntil?: number;
  /** Stopped by the service because another renter bid more, while intended running. */
  outbid?: boolean;
  /** Public keys this instance accepts: the account's keys at creation plus those attached since. */
  sshKeys: SimInstanceKey[];
  /** The overlay network it is on (src/sim/overlay.ts) and its own address there: its eth0, a loopback address. */
  overlay?: { id: number; addr: string };
  /** An injected boot fault (fault kind 'boot'): it never gets past loading, or fails when its boot ends. */
  bootFault?: { mode: 'fail' | 'never'; state: string };
}

/** An overlay network on a physical cluster (POST /api/v0/overlay/); its members are the instances that name it. */
export interface SimOverlay {
  id: number;
  name: string;
  clusterId: number;
  /** The third octet of its subnet 127.<netBase>.<octet>.0/24. */
  octet: number;
}

/** An account SSH key (GET/POST /api/v0/ssh/). */
export interface SimSshKey {
  id: number;
  public_key: string;
  created_at: number;
  deleted_at: number | null;
}

export interface SimInstanceKey {
  id: number;
  name: string;
  public_key: string;
}

export interface SimUser {
  id: number;
  email: string;
  credit: number;
  ssh_key: string;
  full_name: string;
  emailVerified: boolean;
  legacy: boolean;
  team: boolean;
  admin: boolean;
  phone: string | null;
}

export interface TfaMethodRow {
  id: number;
  method: 'sms' | 'totp';
  label: string;
  phone: string | null;
  totpSecret: string | null;
  is_primary: boolean;
  fail_count: number;
  locked_until: number | null;
  created_at: number;
  last_used: number | null;
}

export interface Challenge {
  secret: string;
  channel: 'sms' | 'email';
  code: string;
  to: string;
  createdAt: number;
  expiresAt: number;
  phone: string | null;
  methodId: number | null;
  used: boolean;
}

export interface TfaState {
  enabled: boolean;
  methods: TfaMethodRow[];
  backupCodes: Array<{ code: string; used: boolean; deleted: boolean }>;
  challenges: Map<string, Challenge>;
  authorizedUntil: number | null;
  /** The challenge of step 1 of adding a method, awaiting step 2. */
  pending: { secret: string; channel: 'sms' | 'email' | 'totp'; methodId: number | null } | null;
  lastSmsAt: Map<string, number>;
  /** Failures of verification with no method row (e-mail, legacy phone): keyed 'email' / 'legacy'. */
  emailFails: number;
}

/**
 * Injected faults. `path` matches any request path containing it (with or without its
 * trailing slash); with `exact` only that path itself (e.g. the list, not one instance).
 */
export type Fault =
  | { kind: 'http_error'; status: number; error?: string; msg?: string; retryAfter?: number; path?: string; exact?: boolean; count: number }
  | { kind: 'refused'; msg?: string; path?: string; exact?: boolean; count: number }
  | { kind: 'slow'; ms: number; path?: string; exact?: boolean; count: number }
  | { kind: 'malformed'; path?: string; exact?: boolean; count: number }
  | { kind: 'truncated'; path?: string; exact?: boolean; count: number }
  | { kind: 'wrong_shape'; path?: string; exact?: boolean; count: number }
  | { kind: 'huge'; bytes: number; declare: boolean; path?: string; exact?: boolean; count: number }
  | { kind: 'reset'; path?: string; exact?: boolean; count: number }
  | { kind: 'hidden'; seconds: number; count: number }
  | { kind: 'unfiltered'; count: number }
  | { kind: 'tfa_error'; error: string; count: number }
  /** The instance created after `skip` more creations (on `offerId`, if given) fails or never ends its boot, boots in `seconds`, or shows up `seconds` late. */
  | { kind: 'boot'; mode: 'fail' | 'never' | 'slow' | 'late'; skip: number; offerId?: number; seconds?: number; state?: string; count: number };

export interface OutboxMessage {
  channel: 'sms' | 'email';
  to: string;
  code: string;
  secret: string;
  at: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  at: number;
}

export const TEMPLATES: SimTemplate[] = [
  {
    id: 301,
    hash_id: '4e17788f74f075dd9aab7d0d4427968f',
    name: 'pytorch-cuda12',
    image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
    env: { '-p 8888:8888': '1', PYTHONUNBUFFERED: '1', DATA_DIRECTORY: '/workspace/' },
    onstart: 'env >> /etc/environment',
    runtype: 'ssh_direct',
    disk: 32,
    recommended: true,
    description: 'PyTorch 2.5 with CUDA 12.4, SSH direct, port 8888 mapped.',
    count_created: 48211,
  },
  {
    id: 302,
    hash_id: 'a8a44c7363cbca20056020397e3bf072',
    name: 'jupyter-lab',
    image: 'vastai/base-image:cuda-12.4.1-auto',
    env: { JUPYTER_DIR: '/', '-p 8080:8080': '1' },
    onstart: 'entrypoint.sh',
    runtype: 'jupyter_direct',
    disk: 16,
    jupyter_dir: '/',
    use_jupyter_lab: true,
    recommended: true,
    description: 'JupyterLab on the CUDA base image, direct connection.',
    count_created: 90234,
  },
  {
    id: 303,
    hash_id: 'e0a4b7c2d6f1e8a93b5c7d2f4a6e8b10',
    name: 'vllm-serve',
    image: 'registry.sim.local/team/vllm-openai:v0.6.3',
    env: { '-p 8000:8000': '1', HF_HOME: '/workspace/hf', VLLM_PORT: '8000' },
    onstart: '',
    runtype: 'args',
    args_str: '--model Qwen/Qwen2.5-7B-Instruct --port 8000',
    disk: 64,
    docker_login_repo: 'registry.sim.local',
    docker_login_user: 'sim-robot',
    docker_login_pass: 'sim-registry-password',
    description: 'vLLM OpenAI-compatible server from a private registry.',
    count_created: 312,
  },
  {
    id: 304,
    hash_id: '7c1f2a9e5b3d4c6a8e0f1b2d3c4e5f60',
    name: 'tensorflow-jupyter',
    image: 'tensorflow/tensorflow:2.17.0-gpu-jupyter',
    env: { '-p 8888:8888': '1' },
    onstart: 'echo "TensorFlow ready"',
    runtype: 'jupyter_proxy',
    disk: 24,
    recommended: true,
    description: 'TensorFlow 2.17 with Jupyter through the proxy.',
    count_created: 15020,
  },
  {
    id: 305,
    hash_id: '2b9d8c7e6f5a4b3c2d1e0f9a8b7c6d5e',
    name: 'ollama',
    image: 'ollama/ollama:0.4.7',
    env: { '-p 11434:11434': '1', OLLAMA_HOST: '0.0.0.0' },
    onstart: 'ollama serve > /var/log/ollama.log 2>&1 &',
    runtype: 'ssh_proxy',
    disk: 40,
    description: 'Ollama server on port 11434, SSH through the proxy.',
    count_created: 7311,
  },
];

export function findTemplate(idOrName: string): SimTemplate | undefined {
  return TEMPLATES.find((t) => t.hash_id === idOrName || t.name === idOrName);
}

export function randomKey(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * The next id of everything the service numbers. Its ids never repeat, and clients keep state per
 * id (SSH entries, guard state, in-flight rentals, increases already shown): a reset gives a
 * fresh account but keeps these counters going, so every counter belongs here.
 */
export interface SimIds {
  instance: number;
  sshKey: number;
  tfaMethod: number;
  priceIncrease: number;
  invoice: number;
  overlay: number;
}

export class SimState {
  offset = 0;
  offers: OfferRecord[];
  instances = new Map<number, SimInstance>();
  readonly ids: SimIds;
  user: SimUser;
  sessions = new Map<string, { expired: boolean; createdAt: number }>();
  /** tfa_secrets of simulated username/password logins (POST /_sim/login), for the logged-out 2FA flow. */
  loginSecrets = new Set<string>();
  faults: Fault[] = [];
  requests: RequestLogEntry[] = [];
  outbox: OutboxMessage[] = [];
  /** Last accepted call per `<token> <endpoint>` (sim seconds), and penalties until a time. */
  lastCalls = new Map<string, number>();
  penalties = new Map<string, number>();
  /** The era now playing (test control can flip it at run time). */
  era: Era;
  rateLimits: RateLimits;
  /** Offers whose machine cannot be scheduled now, and offers on the caller's own machines. */
  unschedulable = new Set<number>();
  ownOffers = new Set<number>();
  lastAccrual: number;
  tfa: TfaState;
  /** Requested logs by token: the text appears at its result_url once `readyAt` (wall clock, ms) passed. */
  logUploads = new Map<string, { text: string; readyAt: number }>();
  /** Every GET of a log result_url, and whether it carried credentials (it must not). */
  logFetches: Array<{ path: string; status: number; authorization: boolean }> = [];
  /** Phone numbers starting with one of these are rejected with sms_blocked_number. */
  blockedPrefixes = ['+1555000'];
  sshKeys: SimSshKey[] = [];
  /**
   * With the SSH servers on: the real loopback port an instance's SSH listens on for its current
   * boot. The wire record then reports exactly that address by the service's rules.
   */
  sshListenPort?: (inst: SimInstance) => number | undefined;
  /** Answers a slow fault holds back, each with the function that cuts its wait short. */
  heldAnswers = new Set<() => void>();
  overlays = new Map<number, SimOverlay>();
  /** Overlay addresses are 127.<netBase>.x.y: random per simulator, so simulators running side by side rarely share one. */
  netBase = 16 + (randomBytes(1)[0]! % 239);

  constructor(readonly config: SimConfig) {
    this.era = config.era;
    this.rateLimits = { ...config.rateLimits };
    this.offers = generateOffers(config.seed, config.offers);
    this.ids = { instance: 20000000 + (config.seed % 1000) * 1000, sshKey: 9101, tfaMethod: 7001, priceIncrease: 5001, invoice: 880001, overlay: 601 };
    this.user = {
      id: 424242,
      email: 'sim.user@example.com',
      credit: 25,
      ssh_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISimulatedPublicKeyForDemoModeOnly sim@demo',
      full_name: 'Sim User',
      emailVerified: true,
      legacy: false,
      team: false,
      admin: false,
      phone: '+14155550123',
    };
    this.tfa = freshTfa();
    this.lastAccrual = this.now();
  }

  now(): number {
    return Date.now() / 1000 + this.offset;
  }

  advance(seconds: number): number {
    this.accrue();
    this.offset += seconds;
    this.accrue();
    return this.now();
  }

  /** Charges compute (while running) and storage (always) from the last accrual until now. */
  accrue(): void {
    const now = this.now();
    const from = this.lastAccrual;
    if (now <= from) return;
    for (const inst of this.instances.values()) {
      const storageHour = instanceStorageHour(inst);
      const start = Math.max(from, inst.createdAt);
      if (now <= start) continue;
      const storage = (storageHour * (now - start)) / 3600;
      let compute = 0;
      let billedFrom: number | undefined;
      if (inst.intended === 'running' && !inst.failure && !inst.outbid && !inst.bootFault) {
        const runFrom = Math.max(start, inst.bootStart + inst.bootSeconds);
        if (now > runFrom) compute = (instanceComputeHour(inst) * (now - runFrom)) / 3600;
        billedFrom = runFrom;
      }
      recordUsage(this, inst, start, now, billedFrom); // the per-day charges (src/sim/billing.ts)
      inst.storageTotal += storage;
      inst.totalCost += storage + compute;
      this.user.credit -= storage + compute;
    }
    this.lastAccrual = now;
  }
}

export function freshTfa(): TfaState {
  return {
    enabled: false,
    methods: [],
    backupCodes: [],
    challenges: new Map(),
    authorizedUntil: null,
    pending: null,
    lastSmsAt: new Map(),
    emailFails: 0,
  };
}

export function instanceStorageHour(inst: SimInstance): number {
  return (inst.disk * inst.offer.storage_cost) / 730;
}

export function instanceComputeHour(inst: SimInstance): number {
  return inst.isBid && inst.price !== null ? inst.price : (inst.offer.dph_base as number);
}

/**
 * Holds an answer back for `ms` (the slow fault): true when the time has passed, false when a
 * reset or the simulator's close cut the wait short (the answer is then never sent).
 */
export function holdBack(state: SimState, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const cut = (): void => {
      clearTimeout(timer);
      state.heldAnswers.delete(cut);
      resolve(false);
    };
    const timer = setTimeout(() => {
      state.heldAnswers.delete(cut);
      resolve(true);
    }, ms);
    state.heldAnswers.add(cut);
  });
}

/** Drops every answer a slow fault still holds back: a reset starts without them, a close does not wait for them. */
export function dropHeldAnswers(state: SimState): void {
  for (const cut of [...state.heldAnswers]) cut();
}
