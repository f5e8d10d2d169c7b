// Real SSH servers for simulated instances, built on the `ssh2` library (no SSH protocol code
// here). Every running instance gets a listener on exactly the loopback address its record
// reports (proxy ssh_port, Jupyter-proxy ssh_port + 1, direct ports["22/tcp"]; an overlay member
// also on its own overlay address, same port: src/sim/memberNet.ts), its own host key,
// and accepts user root with the public keys the instance accepts (account keys at creation plus
// those attached since). A session is a real /bin/sh run as the local user in the instance's
// scratch folder: a shell on your own machine, for the demo and tests, never a sandbox.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect as netConnect, type Server as NetServer, type Socket } from 'node:net';
import { userInfo } from 'node:os';
import { Server as Ssh2Server, utils, type Connection, type ServerChannel, type Session } from 'ssh2';
import { actualStatus, sshPlacement } from './instances';
import { instanceEnv, instanceHome } from './sandbox';
import { instancePath } from './onstart';
import { memberPath } from './memberNet';
import type { SimInstance, SimState } from './state';

const LOOPBACK = '127.0.0.1';
const FORWARD_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

interface Listener {
  id: number;
  /** The boot (inst.restarts) this listener serves; a restart moves the instance to a new port. */
  gen: number;
  port: number;
  net: NetServer;
  sockets: Set<Socket>;
  /** An overlay member's second listener: its own overlay address, same port (what its peers dial). */
  member?: { addr: string; net: NetServer };
  onSocket: (s: Socket) => void;
}

export interface SimSshServers {
  /**
   * Opens listeners for instances that need one, closes those of stopped or destroyed ones.
   * Resolves once every instance that should listen has its listener bound (so its record
   * reports a port that answers), or its failure is logged and kept (see problemOf): one
   * instance that cannot be served never keeps the others from being served, and the next
   * sync tries it again.
   */
  sync(): Promise<void>;
  /** The loopback port an instance's SSH listens on, if it has a listener. */
  portOf(id: number): number | undefined;
  /** Why the last sync could not open a listener for an instance (undefined: no problem). */
  problemOf(id: number): string | undefined;
  close(): Promise<void>;
}

let scriptAvailable: boolean | undefined;
/** util-linux `script` gives a shell a real terminal (for `ssh` without a command). */
function hasScript(): boolean {
  scriptAvailable ??= process.platform !== 'win32' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  return scriptAvailable;
}

/** What the listeners of one simulator share. */
interface Ctx {
  state: SimState;
  log: (msg: string) => void;
  listeners: Map<number, Listener>;
  hostKeys: Map<number, string>;
  children: Set<ChildProcess>;
  /** Ports given up by destroyed or moved instances: the next instance gets one first, as the proxies do. */
  released: number[];
  /** Why an instance has no listener after the last sync (cleared once it has one). */
  problems: Map<number, string>;
  /** Host key of an instance (made once per instance); replaceable so tests can make opening fail. */
  hostKeyOf: (id: number) => string;
}

export interface SshServerOptions {
  /** Where listener events and failures go (the simulator's log). */
  log?: (msg: string) => void;
  /** The host key of an instance; default a fresh ed25519 key per instance. */
  hostKey?: (id: number) => string;
}

const serving = (ctx: Ctx, inst: SimInstance | undefined, gen: number): inst is SimInstance =>
  !!inst && inst.restarts === gen && actualStatus(inst, ctx.state.now()) === 'running';

function acceptedKey(inst: SimInstance, data: Buffer) {
  for (const k of inst.sshKeys) {
    const parsed = utils.parseKey(k.public_key);
    if (parsed instanceof Error || Array.isArray(parsed)) continue;
    if (parsed.getPublicSSH().equals(data)) return parsed;
  }
  return undefined;
}

type Pty = { term: string; cols: number; rows: number };

function runShell(ctx: Ctx, inst: SimInstance, channel: ServerChannel, command: string | undefined, pty: Pty | undefined): void {
  const home = instanceHome(ctx.state, inst.id);
  const u = userInfo();
  const env: Record<string, string> = {
    PATH: memberPath(ctx.state, inst, instancePath(ctx.state)),
    LANG: 'C.UTF-8',
    SHELL: '/bin/sh',
    USER: u.username,
    LOGNAME: u.username,
    ...instanceEnv(ctx.state, inst),
    ...(pty ? { TERM: pty.term || 'xterm' } : {}),
  };
  let child: ChildProcess;
  if (pty && hasScript()) {
    const size = pty.cols > 0 && pty.rows > 0 ? `stty cols ${Math.floor(pty.cols)} rows ${Math.floor(pty.rows)} 2>/dev/null; ` : '';
    const inner = command === undefined ? `${size}exec /bin/sh -i` : `${size}${command}`;
    child = spawn('script', ['-qfec', inner, '/dev/null'], { cwd: home, env });
  } else {
    child = spawn('/bin/sh', command === undefined ? ['-i'] : ['-c', command], { cwd: home, env });
  }
  ctx.children.add(child);
  channel.pipe(child.stdin!);
  child.stdout!.pipe(channel, { end: false });
  child.stderr!.pipe(channel.stderr, { end: false });
  child.stdin!.on('error', () => undefined);
  child.on('error', (e) => {
    channel.stderr.write(`simulator: could not start a shell: ${e.message}\n`);
    channel.exit(127);
    channel.end();
  });
  child.on('close', (code, signal) => {
    ctx.children.delete(child);
    if (signal) channel.exit(signal.replace(/^SIG/, ''), false, '');
    else channel.exit(code ?? 0);
    channel.end();
  });
  channel.on('close', () => {
    if (child.exitCode === null) child.kill('SIGHUP');
  });
}

function onSession(ctx: Ctx, id: number, gen: number, acceptSession: () => Session): void {
  const session = acceptSession();
  let pty: Pty | undefined;
  session.on('pty', (accept, _reject, info) => {
    pty = { term: info.term, cols: info.cols, rows: info.rows };
    accept?.();
  });
  session.on('env', (accept) => accept?.());
  session.on('window-change', (accept) => accept?.());
  session.on('exec', (accept, reject, info) => {
    const inst = ctx.state.instances.get(id);
    if (!serving(ctx, inst, gen)) return reject?.();
    runShell(ctx, inst, accept(), info.command, pty);
  });
  session.on('shell', (accept, reject) => {
    const inst = ctx.state.instances.get(id);
    if (!serving(ctx, inst, gen)) return reject?.();
    runShell(ctx, inst, accept(), undefined, pty);
  });
}

function onClient(ctx: Ctx, id: number, gen: number, client: Connection): void {
  client.on('error', () => undefined);
  client.on('authentication', (auth) => {
    const inst = ctx.state.instances.get(id);
    if (auth.method !== 'publickey' || auth.username !== 'root' || !serving(ctx, inst, gen)) return auth.reject(['publickey']);
    const key = acceptedKey(inst, auth.key.data);
    if (!key) return auth.reject(['publickey']);
    if (auth.signature && auth.blob && key.verify(auth.blob, auth.signature, auth.hashAlgo) !== true) return auth.reject(['publickey']);
    auth.accept();
  });
  client.on('ready', () => {
    client.on('session', (acceptSession) => onSession(ctx, id, gen, acceptSession));
    client.on('tcpip', (accept, reject, info) => {
      const inst = ctx.state.instances.get(id);
      // Local forwards reach this machine, and an overlay member's peers on their overlay addresses.
      const peer = !!inst?.overlay && [...ctx.state.instances.values()].some((p) => p.overlay?.id === inst.overlay!.id && p.overlay.addr === info.destIP);
      if ((!FORWARD_HOSTS.has(info.destIP) && !peer) || !serving(ctx, inst, gen)) return reject();
      const upstream = netConnect(info.destPort, peer ? info.destIP : LOOPBACK);
      upstream.once('error', () => reject());
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        const ch = accept();
        ch.on('error', () => upstream.destroy());
        upstream.on('error', () => ch.destroy());
        ch.pipe(upstream).pipe(ch);
      });
    });
  });
}

/** A loopback listener on `port` (0: any free one), resolved once it is bound; undefined when it cannot be. */
async function listen(port: number, onSocket: (s: Socket) => void, host = LOOPBACK): Promise<NetServer | undefined> {
  const srv = createServer(onSocket);
  return new Promise((resolve) => {
    srv.once('error', () => resolve(undefined));
    srv.listen({ port, host, exclusive: true }, () => resolve(srv));
  });
}

/** An overlay member also listens on its overlay address (same port); a failure is logged and the next sync tries again. */
async function bindMember(ctx: Ctx, l: Listener, inst: SimInstance): Promise<void> {
  const addr = inst.overlay?.addr;
  if (!addr || l.member?.addr === addr) return;
  l.member?.net.close();
  l.member = undefined;
  const srv = await listen(l.port, l.onSocket, addr);
  if (!srv) return ctx.log(`ssh: instance ${inst.id} could not listen on its overlay address ${addr}:${l.port} (the next sync tries again)`);
  l.member = { addr, net: srv };
  ctx.log(`ssh: instance ${inst.id} listens on ${addr}:${l.port} (its overlay address)`);
}

/**
 * A fresh ed25519 host key the SSH server can load. ssh2's generator cuts the public key of about
 * one pair in 256 (mscdex/ssh2#1513), and the server refuses such a key ("Malformed OpenSSH
 * private key"): the instance then had no listener and its record the made-up port.
 */
function newHostKey(): string {
  for (let attempt = 0; attempt < 16; attempt++) {
    const k = utils.generateKeyPairSync('ed25519').private;
    const parsed = utils.parseKey(k);
    if (!(parsed instanceof Error) && !Array.isArray(parsed)) return k;
  }
  throw new Error('the SSH library made no usable ed25519 host key in 16 attempts');
}

/** Binds the instance's listener; resolves once it is bound and registered (its port is then reported). */
async function open(ctx: Ctx, inst: SimInstance): Promise<void> {
  const id = inst.id;
  const gen = inst.restarts;
  let ssh: Ssh2Server;
  try {
    ssh = new Ssh2Server({ hostKeys: [ctx.hostKeyOf(id)], ident: 'SSH-2.0-gpu-rental-sim' }, (client) => onClient(ctx, id, gen, client));
  } catch (e) {
    // A host key the server cannot load is never tried again: the next sync makes a new one
    // (kept, it would leave the instance without a listener for good).
    ctx.hostKeys.delete(id);
    throw e;
  }
  const sockets = new Set<Socket>();
  const onSocket = (sock: Socket) => {
    // Bound from creation (so the reported port is really ours), served only while running.
    if (!serving(ctx, ctx.state.instances.get(id), gen)) return void sock.destroy();
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    ssh.injectSocket(sock);
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    let srv: NetServer | undefined;
    while (!srv && ctx.released.length) srv = await listen(ctx.released.pop()!, onSocket);
    srv ??= await listen(0, onSocket);
    const address = srv?.address();
    const port = address && typeof address === 'object' ? address.port : 0;
    // A Jupyter-proxy instance reports ssh_port = listener - 1: that must stay a valid port.
    if (!srv || port < 1 || (sshPlacement(inst) === 'jupyter_proxy' && port < 2)) {
      srv?.close();
      continue;
    }
    const l: Listener = { id, gen, port, net: srv, sockets, onSocket };
    ctx.listeners.set(id, l);
    ctx.log(`ssh: instance ${id} listens on ${LOOPBACK}:${port}`);
    await bindMember(ctx, l, inst);
    return;
  }
  throw new Error('no free loopback port for an SSH server');
}

function shut(ctx: Ctx, l: Listener): void {
  ctx.listeners.delete(l.id);
  l.net.close();
  l.member?.net.close();
  for (const s of l.sockets) s.destroy();
  ctx.released.push(l.port);
}

const wantsListener = (inst: SimInstance): boolean => inst.intended === 'running' && !inst.failure && !inst.runtype.includes('args');

async function doSync(ctx: Ctx): Promise<void> {
  const { state, listeners } = ctx;
  for (const l of [...listeners.values()]) {
    const inst = state.instances.get(l.id);
    if (!inst || inst.restarts !== l.gen || inst.intended !== 'running' || inst.failure) shut(ctx, l);
  }
  for (const id of [...ctx.hostKeys.keys()]) if (!state.instances.has(id)) ctx.hostKeys.delete(id);
  for (const id of [...ctx.problems.keys()]) if (!state.instances.has(id)) ctx.problems.delete(id);
  for (const inst of [...state.instances.values()]) {
    const have = listeners.get(inst.id);
    // Joined an overlay after its listener opened (PUT /api/v0/overlay/): bind the overlay address too.
    if (have && inst.overlay && have.member?.addr !== inst.overlay.addr) await bindMember(ctx, have, inst);
    if (!wantsListener(inst) || have) continue;
    // One instance that cannot be opened must not leave the others unserved: its failure is
    // logged and kept, and the next sync tries it again.
    try {
      await open(ctx, inst);
      ctx.problems.delete(inst.id);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      ctx.problems.set(inst.id, why);
      ctx.log(`ssh: instance ${inst.id} has no SSH listener yet (next sync tries again): ${why}`);
    }
  }
}

export function startSshServers(state: SimState, opts: SshServerOptions | ((msg: string) => void) = {}): SimSshServers {
  const o = typeof opts === 'function' ? { log: opts } : opts;
  const hostKeys = new Map<number, string>();
  const ctx: Ctx = {
    state,
    log: o.log ?? (() => undefined),
    listeners: new Map(),
    hostKeys,
    children: new Set(),
    released: [],
    problems: new Map(),
    hostKeyOf: (id) => {
      let k = hostKeys.get(id);
      if (!k) {
        k = o.hostKey ? o.hostKey(id) : newHostKey();
        hostKeys.set(id, k);
      }
      return k;
    },
  };
  let closed = false;
  let chain: Promise<void> = Promise.resolve();

  state.sshListenPort = (inst) => {
    const l = ctx.listeners.get(inst.id);
    return l && l.gen === inst.restarts ? l.port : undefined;
  };

  return {
    sync() {
      chain = chain.then(() => (closed ? undefined : doSync(ctx))).catch((e: unknown) => ctx.log(`ssh: ${(e as Error).message}`));
      return chain;
    },
    portOf: (id) => ctx.listeners.get(id)?.port,
    problemOf: (id) => ctx.problems.get(id),
    async close() {
      closed = true;
      await chain;
      for (const l of [...ctx.listeners.values()]) shut(ctx, l);
      for (const c of ctx.children) c.kill('SIGKILL');
      state.sshListenPort = undefined;
    },
  };
}
