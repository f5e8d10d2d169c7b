// Instance lifecycle on the sim clock and the wire shape of an instance record (creation is in
// instanceCreate.ts).
import { stableInt } from './prng';
import { instanceComputeHour, instanceStorageHour, type SimInstance, type SimState } from './state';

export function actualStatus(inst: SimInstance, now: number): string | null {
  if (inst.failure) return inst.failure;
  if (inst.intended === 'stopped') return inst.everStarted ? 'exited' : 'stopped';
  if (inst.outbid) return 'stopped';
  if (inst.rebootUntil !== undefined && now < inst.rebootUntil) return 'rebooting';
  const e = now - inst.bootStart;
  if (e < inst.bootSeconds * 0.1) return null;
  if (e < inst.bootSeconds || inst.bootFault?.mode === 'never') return 'loading';
  if (inst.bootFault) return inst.bootFault.state;
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
    ports[container] = [
      { HostIp: '0.0.0.0', HostPort: String(hp) },
      { HostIp: '::', HostPort: String(hp) },
    ];
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

/** The rates of an instance: what its offer quoted (`search`) and what it bills now (`instance`: storage only while stopped or failed). */
function instancePricing(inst: SimInstance, stoppedish: boolean) {
  const storageHour = instanceStorageHour(inst);
  const computeHour = instanceComputeHour(inst);
  const dphTotal = r(computeHour + storageHour);
  const pricing = {
    gpuCostPerHour: r(computeHour),
    diskHour: r(storageHour),
    totalHour: r(computeHour + storageHour),
    discountTotalHour: 0,
    discountedTotalPerHour: r(computeHour + storageHour),
  };
  const current =
    stoppedish || inst.failure
      ? { gpuCostPerHour: 0, diskHour: r(storageHour), totalHour: r(storageHour), discountTotalHour: 0, discountedTotalPerHour: r(storageHour) }
      : pricing;
  return { storageHour, computeHour, dphTotal, pricing, current };
}

export function renderInstance(state: SimState, inst: SimInstance): Record<string, unknown> {
  const now = state.now();
  const o = inst.offer;
  const status = actualStatus(inst, now);
  const running = status === 'running';
  const stoppedish = inst.intended === 'stopped' || !!inst.outbid;
  const { storageHour, computeHour, dphTotal, pricing, current } = instancePricing(inst, stoppedish);
  const intended = inst.intended;
  const startDate = inst.createdAt;
  const uptime = running ? (now - (inst.bootStart + inst.bootSeconds)) / 60 : null;
  const portsObj = running ? dockerPorts(state, inst) : null;
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
    extra_env: Object.entries(inst.env)
      .filter(([k]) => !k.startsWith('-'))
      .map(([k, v]) => [k, v]),
    onstart: inst.onstart,
    jupyter_token: inst.jupyterToken ?? undefined,
    status_msg:
      inst.failure || inst.bootFault?.mode === 'fail'
        ? `Error: container ${status}`
        : status === 'loading'
          ? 'Pulling image…'
          : running
            ? 'success, running ' + inst.image
            : null,
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
