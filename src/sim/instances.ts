// Instance creation (PUT/POST /api/v0/asks/{id}/), lifecycle on the sim clock and the
// wire shape of an instance record.
import { fail } from './simError';
import type { OfferRecord } from './offers';
import { stableInt } from './prng';
import {
  findTemplate,
  instanceComputeHour,
  instanceStorageHour,
  randomKey,
  type SimInstance,
  type SimState,
  type SimTemplate,
} from './state';

const RUNTYPES = new Set(['ssh', 'ssh_direct', 'ssh_proxy', 'jupyter', 'jupyter_direct', 'jupyter_proxy', 'args']);
const KNOWN_CREATE_KEYS = new Set([
  'image', 'template_hash_id', 'label', 'disk', 'runtype', 'target_state', 'price', 'env', 'onstart', 'args_str',
  'use_jupyter_lab', 'jupyter_dir', 'python_utf8', 'lang_utf8', 'image_login', 'cancel_unavail', 'vm', 'volume_info',
  // sent by the official CLI and ignored by the service
  'client_id', 'force', 'extra', 'args', 'onstart_cmd', 'template_id', 'ssh', 'jupyter', 'direct', 'jupyter_lab',
]);

const PORT_KEY = /^-p\s+(\d{1,5}):(\d{1,5})(\/(tcp|udp))?$/;

/** Canonical runtype tokens from the spec's names or the CLI's space-separated `direc` list. */
export function parseRuntype(raw: string): string[] {
  const tokens = raw
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.replace(/_direc$/, '_direct'));
  if (!tokens.length) throw fail(400, 'invalid_args', 'runtype must not be empty; use ssh_direct, ssh_proxy, jupyter_direct, jupyter_proxy or args.');
  for (const t of tokens) {
    if (!RUNTYPES.has(t)) {
      throw fail(400, 'invalid_args', `runtype '${t}' is not supported; use ssh_direct, ssh_proxy, jupyter_direct, jupyter_proxy or args.`);
    }
  }
  const out = new Set<string>();
  for (const t of tokens) out.add(t === 'ssh' ? 'ssh_proxy' : t === 'jupyter' ? 'jupyter_proxy' : t);
  if (out.has('args') && out.size > 1) throw fail(400, 'invalid_args', "runtype 'args' cannot be combined with ssh or jupyter.");
  return [...out];
}

const given = (v: unknown) => v !== undefined && v !== null;

function optType(body: Record<string, unknown>, key: string, type: 'string' | 'boolean' | 'number'): void {
  const v = body[key];
  if (given(v) && typeof v !== type) throw fail(400, 'invalid_args', `${key} must be a ${type}.`);
}

export function createInstance(state: SimState, offerId: number, body: Record<string, unknown>): { id: number; apiKey: string } {
  for (const k of ['image', 'template_hash_id', 'label', 'runtype', 'target_state', 'onstart', 'args_str', 'jupyter_dir', 'image_login']) {
    optType(body, k, 'string');
  }
  for (const k of ['use_jupyter_lab', 'python_utf8', 'lang_utf8', 'cancel_unavail', 'vm']) optType(body, k, 'boolean');

  let template: SimTemplate | null = null;
  if (given(body.template_hash_id)) {
    template = findTemplate(body.template_hash_id as string) ?? null;
    if (!template) {
      throw fail(404, 'invalid_template', `Template '${String(body.template_hash_id)}' was not found. Check the template hash id.`);
    }
  }
  const image = (given(body.image) ? (body.image as string) : template?.image) ?? '';
  if (!image.trim()) throw fail(400, 'invalid_args', 'image is required unless template_hash_id is given.');

  // env: object only; "-p H:C" keys map ports; flag strings like "-e X=1" are rejected.
  const env: Record<string, string> = { ...(template?.env ?? {}) };
  if (given(body.env)) {
    if (typeof body.env !== 'object' || Array.isArray(body.env)) {
      throw fail(400, 'invalid_args', 'env must be a JSON object of NAME: value pairs (not a flag string).');
    }
    for (const [k, v] of Object.entries(body.env as Record<string, unknown>)) {
      if (k.startsWith('-')) {
        if (!PORT_KEY.test(k)) {
          throw fail(400, 'invalid_args', `env key '${k.slice(0, 40)}' is a flag string; use {"NAME": "value"} for variables and {"-p HOST:CONTAINER": "1"} for ports.`);
        }
      } else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
        throw fail(400, 'invalid_args', `env key '${k.slice(0, 40)}' is not a valid variable name.`);
      }
      if (v !== null && typeof v === 'object') throw fail(400, 'invalid_args', `env value of '${k.slice(0, 40)}' must be a string.`);
      env[k] = v === null || v === undefined ? '' : String(v);
    }
  }

  const onstart = given(body.onstart) ? (body.onstart as string) : template?.onstart || null;
  if (onstart !== null && onstart.length > 4048) {
    throw fail(400, 'invalid_args', `onstart is ${onstart.length} characters; the limit is 4048. Compress and encode longer scripts.`);
  }

  const runtype = parseRuntype(given(body.runtype) ? (body.runtype as string) : template?.runtype ?? 'ssh_proxy');
  const isArgs = runtype.includes('args');
  let argsStr: string | null = null;
  if (given(body.args_str)) {
    if (!isArgs) throw fail(400, 'invalid_args', "args_str is only used with runtype 'args'; remove it or set runtype to args.");
    argsStr = body.args_str as string;
  } else if (isArgs && template?.args_str) argsStr = template.args_str;

  let disk = template?.disk ?? 8;
  if (given(body.disk)) {
    const d = typeof body.disk === 'string' ? Number(body.disk) : body.disk;
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > 100000) {
      throw fail(400, 'invalid_args', 'disk must be a positive number of GB.');
    }
    disk = d;
  }

  const target = given(body.target_state) ? (body.target_state as string) : 'running';
  if (target !== 'running' && target !== 'stopped') {
    throw fail(400, 'invalid_args', "target_state must be 'running' or 'stopped'.");
  }

  let volume: SimInstance['volume'] = null;
  if (given(body.volume_info)) {
    const v = body.volume_info as Record<string, unknown>;
    if (typeof v !== 'object' || Array.isArray(v) || !Number.isInteger(v.volume_id) || typeof v.mount_path !== 'string' || !v.mount_path.startsWith('/')) {
      throw fail(400, 'invalid_args', 'volume_info needs both volume_id (integer) and mount_path (absolute path).');
    }
    volume = { volume_id: v.volume_id as number, mount_path: v.mount_path };
  }

  let price: number | null = null;
  if (given(body.price)) {
    const p = typeof body.price === 'string' ? Number(body.price) : body.price;
    if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0) throw fail(400, 'invalid_args', 'price must be a positive number of dollars per hour.');
    price = p;
  }

  // The offer: checked last, after the body validated, as the real service does.
  // Every creation error of the live service carries the offer as ask_id.
  const today = state.era === 'today';
  const askFail = (status: number, error: string, msg: string) => fail(status, error, msg, today ? { ask_id: offerId } : {});
  const offer = state.offers.find((o) => o.id === offerId);
  const interruptible = price !== null;
  // The live service's defaults: fail fast for on-demand started running, wait (stopped) for interruptible.
  const cancelUnavail = given(body.cancel_unavail) ? body.cancel_unavail === true : today ? !interruptible && target === 'running' : false;
  if (!offer || offer.rented || offer.taken || !offer.rentable) {
    if (body.cancel_unavail === true || (today && cancelUnavail)) {
      throw askFail(410, 'no_such_ask', `Offer ${offerId} is no longer available. Search again and pick another offer.`);
    }
    throw askFail(404, 'no_such_ask', `Offer ${offerId} is no longer available. Search again and pick another offer.`);
  }
  if (today && state.ownOffers.has(offerId)) {
    throw askFail(403, 'own_machine', `Offer ${offerId} is on one of your own machines; you cannot rent it. Pick another offer.`);
  }
  if (price !== null && price < offer.min_bid) {
    if (today) throw askFail(400, 'invalid_price', `Bid $${price}/h is below this offer's minimum bid $${offer.min_bid}/h. Raise the price.`);
    throw fail(400, 'bid_too_low', `Bid $${price}/h is below this offer's minimum bid $${offer.min_bid}/h. Raise the price.`);
  }
  if (body.vm === true && !state.sshKeys.some((k) => k.deleted_at === null)) {
    throw fail(400, 'no_ssh_key_for_vm', 'A VM instance needs an SSH key on the account. Add one (POST /api/v0/ssh/), then try again.', { ask_id: offerId });
  }
  if (state.user.credit <= 0) {
    throw fail(402, 'insufficient_credit', 'Your account has no credit left. Add credit, then try again.');
  }
  // A machine that cannot be scheduled now: with cancel_unavail the ask fails, without it the
  // instance is created stopped and waits (storage bills meanwhile).
  let startsStopped = false;
  if (today && state.unschedulable.has(offerId)) {
    if (cancelUnavail) throw askFail(410, 'no_such_ask', `Offer ${offerId} cannot be scheduled now. Pick another offer.`);
    startsStopped = true;
  }

  state.accrue();
  const now = state.now();
  const id = state.nextInstanceId++;
  const apiKey = randomKey();
  const jupyter = runtype.some((t) => t.startsWith('jupyter'));
  const inst: SimInstance = {
    id,
    offer,
    label: given(body.label) ? (body.label as string) : null,
    image,
    runtype,
    env,
    onstart,
    argsStr,
    disk,
    intended: startsStopped ? 'stopped' : target,
    bootStart: now,
    bootSeconds: state.config.bootSeconds,
    restarts: 0,
    failure: null,
    createdAt: now,
    isBid: price !== null,
    price,
    apiKey,
    jupyterToken: jupyter ? randomKey() : null,
    template,
    dockerLogin:
      template?.docker_login_repo || given(body.image_login)
        ? {
            repo: template?.docker_login_repo,
            user: template?.docker_login_user,
            pass: template?.docker_login_pass,
            imageLogin: given(body.image_login) ? (body.image_login as string) : undefined,
          }
        : null,
    useJupyterLab: given(body.use_jupyter_lab) ? (body.use_jupyter_lab as boolean) : !!template?.use_jupyter_lab,
    jupyterDir: given(body.jupyter_dir) ? (body.jupyter_dir as string) : template?.jupyter_dir ?? null,
    vm: body.vm === true,
    volume,
    totalCost: 0,
    storageTotal: 0,
    everStarted: target === 'running' && !startsStopped,
    unscheduled: startsStopped,
    sshKeys: state.sshKeys.filter((k) => k.deleted_at === null).map((k) => ({ id: k.id, name: keyName(k.public_key, k.id), public_key: k.public_key })),
  };
  state.instances.set(id, inst);
  offer.rented = true;
  return { id, apiKey };
}

export function ignoredCreateKeys(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((k) => !KNOWN_CREATE_KEYS.has(k));
}

export function actualStatus(inst: SimInstance, now: number): string | null {
  if (inst.failure) return inst.failure;
  if (inst.intended === 'stopped') return inst.everStarted ? 'exited' : 'stopped';
  if (inst.outbid) return 'stopped';
  if (inst.rebootUntil !== undefined && now < inst.rebootUntil) return 'rebooting';
  const e = now - inst.bootStart;
  if (e < inst.bootSeconds * 0.1) return null;
  if (e < inst.bootSeconds) return 'loading';
  return 'running';
}

export function sshPort(inst: SimInstance): number {
  return stableInt(10000, 60000, inst.id, inst.restarts);
}

/** The comment of a key line, or a name made from its id. */
export function keyName(publicKey: string, id: number): string {
  return publicKey.trim().split(/\s+/).slice(2).join(' ') || `key-${id}`;
}

/**
 * Where the service puts an instance's SSH (service-today section 4): direct when the
 * runtype maps port 22, else the proxy, one port up for a Jupyter-proxy instance.
 */
export function sshPlacement(inst: SimInstance): 'direct' | 'jupyter_proxy' | 'proxy' {
  if (inst.runtype.includes('ssh_direct') || inst.runtype.includes('jupyter_direct')) return 'direct';
  return inst.runtype.some((t) => t.startsWith('jupyter')) ? 'jupyter_proxy' : 'proxy';
}

/** The proxy port the record reports; with the SSH servers on it is derived from the real listener. */
function proxyPort(state: SimState, inst: SimInstance): number {
  const listen = state.sshListenPort?.(inst);
  if (listen === undefined) return sshPort(inst);
  const placement = sshPlacement(inst);
  return placement === 'proxy' ? listen : placement === 'jupyter_proxy' ? listen - 1 : sshPort(inst);
}

function dockerPorts(state: SimState, inst: SimInstance): Record<string, Array<{ HostIp: string; HostPort: string }>> {
  const ports: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  const start = (inst.offer.direct_port_start as number) > 0 ? (inst.offer.direct_port_start as number) : 40000;
  const span = Math.max(1, (inst.offer.direct_port_count as number) || 1);
  let n = 0;
  const add = (container: string, host?: number) => {
    const hp = host ?? start + ((stableInt(0, span, inst.id, inst.restarts) + n++) % span);
    ports[container] = [{ HostIp: '0.0.0.0', HostPort: String(hp) }, { HostIp: '::', HostPort: String(hp) }];
  };
  if (inst.runtype.includes('ssh_direct') || inst.runtype.includes('jupyter_direct')) add('22/tcp', state.sshListenPort?.(inst));
  if (inst.runtype.includes('jupyter_direct')) add('8080/tcp');
  for (const k of Object.keys(inst.env)) {
    const m = /^-p\s+(\d+):(\d+)(?:\/(tcp|udp))?$/.exec(k);
    if (m) add(`${m[2]}/${m[3] ?? 'tcp'}`);
  }
  return ports;
}

function wireRuntype(inst: SimInstance): string {
  // The service echoes its own spelling, e.g. "ssh ssh_direc ssh_proxy".
  if (inst.runtype.includes('args')) return 'args';
  const jupyter = inst.runtype.some((t) => t.startsWith('jupyter'));
  const direct = inst.runtype.some((t) => t.endsWith('_direct'));
  return jupyter ? `jupyter${direct ? ' jupyter_direc ssh_direc' : ''} ssh_proxy` : `ssh${direct ? ' ssh_direc' : ''} ssh_proxy`;
}

const r = (x: number, d = 6) => Math.round(x * 10 ** d) / 10 ** d;

export const SIM_PUBLIC_IP = '127.0.0.1';
export const SIM_SSH_HOST = '127.0.0.1';

/**
 * Where the instance's SSH really listens, by the service's rules (service-today.md section 4):
 * direct instances on public_ipaddr at the host port of 22/tcp; the others through the proxy on
 * ssh_host:ssh_port, one port higher for a Jupyter-proxy instance. Undefined while not running
 * or for an args instance (no SSH).
 */
export function sshListenAddress(state: SimState, inst: SimInstance): { host: string; port: number; direct: boolean } | undefined {
  if (inst.runtype.includes('args') || actualStatus(inst, state.now()) !== 'running') return undefined;
  const placement = sshPlacement(inst);
  if (placement === 'direct') {
    const direct = dockerPorts(state, inst)['22/tcp']!;
    return { host: publicIp(state, inst), port: Number(direct[0]!.HostPort), direct: true };
  }
  return { host: SIM_SSH_HOST, port: proxyPort(state, inst) + (placement === 'jupyter_proxy' ? 1 : 0), direct: false };
}

/** With the SSH servers on, the direct address must be reachable: loopback. */
function publicIp(state: SimState, inst: SimInstance): string {
  return state.sshListenPort ? SIM_PUBLIC_IP : (inst.offer.public_ipaddr as string);
}

/**
 * Whether show and list see the instance yet: a `hidden` fault, or in the today era its first
 * `invisibleSeconds` (the live service shows new instances late).
 */
export function isVisible(state: SimState, inst: SimInstance): boolean {
  if (inst.visibleAt !== undefined && state.now() < inst.visibleAt) return false;
  return state.era !== 'today' || state.now() - inst.createdAt >= state.config.invisibleSeconds;
}

export function renderInstance(state: SimState, inst: SimInstance): Record<string, unknown> {
  const now = state.now();
  const o = inst.offer;
  const status = actualStatus(inst, now);
  const running = status === 'running';
  const storageHour = instanceStorageHour(inst);
  const computeHour = instanceComputeHour(inst);
  const dphTotal = r(computeHour + storageHour);
  const stoppedish = inst.intended === 'stopped' || !!inst.outbid;
  const intended = inst.intended;
  const startDate = inst.createdAt;
  const uptime = running ? (now - (inst.bootStart + inst.bootSeconds)) / 60 : null;
  const portsObj = running ? dockerPorts(state, inst) : null;
  const pricing = {
    gpuCostPerHour: r(computeHour),
    diskHour: r(storageHour),
    totalHour: r(computeHour + storageHour),
    discountTotalHour: 0,
    discountedTotalPerHour: r(computeHour + storageHour),
  };
  const current = stoppedish || inst.failure
    ? { gpuCostPerHour: 0, diskHour: r(storageHour), totalHour: r(storageHour), discountTotalHour: 0, discountedTotalPerHour: r(storageHour) }
    : pricing;
  return {
    id: inst.id,
    actual_status: status,
    intended_status: intended,
    cur_state: intended,
    next_state: intended,
    label: inst.label,
    template_id: inst.template?.id ?? null,
    template_hash_id: inst.template?.hash_id ?? null,
    template_name: inst.template?.name ?? null,
    image_uuid: inst.image,
    image_args: inst.argsStr ? inst.argsStr.split(/\s+/).filter(Boolean) : [],
    image_runtype: wireRuntype(inst),
    extra_env: Object.entries(inst.env).filter(([k]) => !k.startsWith('-')).map(([k, v]) => [k, v]),
    onstart: inst.onstart,
    jupyter_token: inst.jupyterToken ?? undefined,
    status_msg:
      inst.failure ? `Error: container ${inst.failure}` : status === 'loading' ? 'Pulling image…' : running ? 'success, running ' + inst.image : null,
    local_ipaddrs: '172.17.0.2 127.0.0.1',
    ssh_host: SIM_SSH_HOST,
    ssh_idx: '3',
    ssh_port: stoppedish ? 0 : proxyPort(state, inst),
    machine_dir_ssh_port: stoppedish ? 0 : proxyPort(state, inst) + 1,
    machine_id: o.machine_id,
    bundle_id: o.bundle_id,
    start_date: startDate,
    end_date: startDate + (o.duration as number),
    uptime_mins: uptime === null ? null : r(uptime, 2),
    duration: o.duration,
    cpu_arch: o.cpu_arch,
    cpu_cores: o.cpu_cores,
    cpu_cores_effective: o.cpu_cores_effective,
    cpu_name: o.cpu_name,
    cpu_ram: o.cpu_ram,
    cpu_util: running ? 0.03 : 0,
    mem_limit: running ? (o.cpu_ram as number) / 2 : null,
    mem_usage: running ? 512.5 : null,
    vmem_usage: running ? 1024.25 : null,
    gpu_name: o.gpu_name,
    gpu_arch: o.gpu_arch,
    gpu_totalram: o.gpu_totalram,
    gpu_ram: o.gpu_ram,
    gpu_util: running ? Math.max(0, ...(inst.gpuUtil ?? [0])) : null,
    gpu_temp: running ? 34 : null,
    gpu_frac: o.gpu_frac,
    gpu_lanes: o.gpu_lanes,
    gpu_mem_bw: o.gpu_mem_bw,
    bw_nvlink: o.bw_nvlink,
    disk_name: o.disk_name,
    disk_space: inst.disk,
    disk_bw: o.disk_bw,
    disk_util: running ? 0.5 : 0,
    disk_usage: running ? 12.5 : 0,
    direct_port_count: o.direct_port_count,
    direct_port_start: o.direct_port_start,
    direct_port_end: o.direct_port_end,
    ports: portsObj,
    static_ip: o.static_ip,
    public_ipaddr: publicIp(state, inst),
    geolocation: o.geolocation,
    verification: o.verification,
    rentable: o.rentable,
    host_id: o.host_id,
    hosting_type: o.hosting_type,
    min_bid: o.min_bid,
    is_bid: inst.isBid,
    dph_base: r(computeHour),
    dph_total: dphTotal,
    dlperf: o.dlperf,
    dlperf_per_dphtotal: r((o.dlperf as number) / dphTotal, 3),
    flops_per_dphtotal: r((o.total_flops as number) / dphTotal, 3),
    total_flops: o.total_flops,
    score: o.score,
    reliability2: o.reliability2,
    os_version: o.os_version,
    mobo_name: o.mobo_name,
    pci_gen: o.pci_gen,
    pcie_bw: o.pcie_bw,
    num_gpus: o.num_gpus,
    logo: o.logo,
    webpage: null,
    search: pricing,
    instance: current,
    storage_cost: r(storageHour),
    storage_total_cost: r(inst.storageTotal),
    vram_costperhour: o.vram_costperhour,
    credit_balance: r(state.user.credit, 4),
    credit_discount: null,
    credit_discount_max: 0.4,
    client_run_time: r((now - inst.createdAt) / 3600, 4),
    host_run_time: r((now - inst.createdAt) / 3600, 4),
    external: false,
    time_remaining: '',
    time_remaining_isbid: inst.isBid ? '' : '',
    vm: inst.vm,
    volume_info: inst.volume,
    total_cost: r(inst.totalCost, 6),
  };
}

export function stopInstance(state: SimState, inst: SimInstance): void {
  state.accrue();
  inst.intended = 'stopped';
}

export function startInstance(state: SimState, inst: SimInstance): void {
  state.accrue();
  if (inst.intended === 'running') return;
  inst.intended = 'running';
  inst.everStarted = true;
  inst.bootStart = state.now();
  inst.restarts++;
}

export function destroyInstance(state: SimState, inst: SimInstance): void {
  state.accrue();
  state.instances.delete(inst.id);
  inst.offer.rented = false;
}

/** Seeds N already-running instances on rentable offers. */
export function seedInstances(state: SimState, n: number): void {
  const free = state.offers.filter((o: OfferRecord) => !o.rented && !o.taken && o.rentable && o.verified);
  for (let i = 0; i < n && i < free.length; i++) {
    // Spread over the catalogue; on a collision take the next free offer, so n offers give n instances.
    let offer = free[(i * 7) % free.length]!;
    if (offer.rented) offer = free.find((o) => !o.rented) ?? offer;
    if (offer.rented) break;
    const { id } = createInstance(state, offer.id, { image: 'vastai/base-image:cuda-12.4.1-auto', runtype: 'ssh_direct', label: `seeded-${i + 1}` });
    const inst = state.instances.get(id)!;
    inst.bootStart = state.now() - inst.bootSeconds - 60 * (i + 1);
    inst.createdAt = inst.bootStart;
  }
}
