// Real SSH servers for simulated instances, built on the `ssh2` library (no SSH protocol code
// here). Every running instance gets a listener on exactly the loopback address its record
// reports (proxy ssh_port, Jupyter-proxy ssh_port + 1, direct ports["22/tcp"]), its own host key,
// and accepts user root with the public keys the instance accepts (account keys at creation plus
// those attached since). A session is a real /bin/sh run as the local user in the instance's
// scratch folder: a shell on your own machine, for the demo and tests, never a sandbox.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect as netConnect, type Server as NetServer, type Socket } from 'node:net';
import { userInfo } from 'node:os';
import { Server as Ssh2Server, utils, type Connection, type ServerChannel } from 'ssh2';
import { actualStatus, sshPlacement } from './instances';
import { instanceEnv, instanceHome } from './sandbox';
import { instancePath } from './onstart';
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
}

export interface SimSshServers {
  /** Opens listeners for instances that need one, closes those of stopped or destroyed ones. */
  sync(): Promise<void>;
  /** The loopback port an instance's SSH listens on, if it has a listener. */
  portOf(id: number): number | undefined;
  close(): Promise<void>;
}

let scriptAvailable: boolean | undefined;
/** util-linux `script` gives a shell a real terminal (for `ssh` without a command). */
function hasScript(): boolean {
  scriptAvailable ??= process.platform !== 'win32' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  return scriptAvailable;
}

export function startSshServers(state: SimState, log: (msg: string) => void = () => undefined): SimSshServers {
  const listeners = new Map<number, Listener>();
  const hostKeys = new Map<number, string>();
  const children = new Set<ChildProcess>();
  /** Ports given up by destroyed or moved instances: the next instance gets one first, as the proxies do. */
  const released: number[] = [];
  let closed = false;
  let chain: Promise<void> = Promise.resolve();

  state.sshListenPort = (inst) => {
    const l = listeners.get(inst.id);
    return l && l.gen === inst.restarts ? l.port : undefined;
  };

  const hostKeyOf = (id: number): string => {
    let k = hostKeys.get(id);
    if (!k) {
      k = utils.generateKeyPairSync('ed25519').private;
      hostKeys.set(id, k);
    }
    return k;
  };

  const serving = (inst: SimInstance | undefined, gen: number): inst is SimInstance =>
    !!inst && inst.restarts === gen && actualStatus(inst, state.now()) === 'running';

  function accepts(inst: SimInstance, data: Buffer) {
    for (const k of inst.sshKeys) {
      const parsed = utils.parseKey(k.public_key);
      if (parsed instanceof Error || Array.isArray(parsed)) continue;
      if (parsed.getPublicSSH().equals(data)) return parsed;
    }
    return undefined;
  }

  function run(inst: SimInstance, channel: ServerChannel, command: string | undefined, pty: { term: string; cols: number; rows: number } | undefined): void {
    const home = instanceHome(state, inst.id);
    const u = userInfo();
    const env: Record<string, string> = {
      PATH: instancePath(state),
      LANG: 'C.UTF-8',
      SHELL: '/bin/sh',
      USER: u.username,
      LOGNAME: u.username,
      ...instanceEnv(state, inst),
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
    children.add(child);
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
      children.delete(child);
      if (signal) channel.exit(signal.replace(/^SIG/, ''), false, '');
      else channel.exit(code ?? 0);
      channel.end();
    });
    channel.on('close', () => {
      if (child.exitCode === null) child.kill('SIGHUP');
    });
  }

  function onClient(id: number, gen: number, client: Connection): void {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      const inst = state.instances.get(id);
      if (ctx.method !== 'publickey' || ctx.username !== 'root' || !serving(inst, gen)) return ctx.reject(['publickey']);
      const key = accepts(inst, ctx.key.data);
      if (!key) return ctx.reject(['publickey']);
      if (ctx.signature && ctx.blob && key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
      ctx.accept();
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        let pty: { term: string; cols: number; rows: number } | undefined;
        session.on('pty', (accept, _reject, info) => {
          pty = { term: info.term, cols: info.cols, rows: info.rows };
          accept?.();
        });
        session.on('env', (accept) => accept?.());
        session.on('window-change', (accept) => accept?.());
        session.on('exec', (accept, reject, info) => {
          const inst = state.instances.get(id);
          if (!serving(inst, gen)) return reject?.();
          run(inst, accept(), info.command, pty);
        });
        session.on('shell', (accept, reject) => {
          const inst = state.instances.get(id);
          if (!serving(inst, gen)) return reject?.();
          run(inst, accept(), undefined, pty);
        });
      });
      client.on('tcpip', (accept, reject, info) => {
        if (!FORWARD_HOSTS.has(info.destIP) || !serving(state.instances.get(id), gen)) return reject();
        const upstream = netConnect(info.destPort, LOOPBACK);
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

  async function listen(port: number, onSocket: (s: Socket) => void): Promise<NetServer | undefined> {
    const srv = createServer(onSocket);
    return new Promise((resolve) => {
      srv.once('error', () => resolve(undefined));
      srv.listen({ port, host: LOOPBACK, exclusive: true }, () => resolve(srv));
    });
  }

  async function open(inst: SimInstance): Promise<void> {
    const id = inst.id;
    const gen = inst.restarts;
    const ssh = new Ssh2Server({ hostKeys: [hostKeyOf(id)], ident: 'SSH-2.0-gpu-rental-sim' }, (client) => onClient(id, gen, client));
    const sockets = new Set<Socket>();
    const onSocket = (sock: Socket) => {
      // Bound from creation (so the reported port is really ours), served only while running.
      if (!serving(state.instances.get(id), gen)) return void sock.destroy();
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      ssh.injectSocket(sock);
    };
    let srv: NetServer | undefined;
    while (!srv && released.length) srv = await listen(released.pop()!, onSocket);
    srv ??= await listen(0, onSocket);
    if (!srv) throw new Error('no free loopback port for an SSH server');
    const port = (srv.address() as { port: number }).port;
    // A Jupyter-proxy instance reports ssh_port = listener - 1: that must stay a valid port.
    if (sshPlacement(inst) === 'jupyter_proxy' && port < 2) {
      srv.close();
      return open(inst);
    }
    listeners.set(id, { id, gen, port, net: srv, sockets });
    log(`ssh: instance ${id} listens on ${LOOPBACK}:${port}`);
  }

  function shut(l: Listener): void {
    listeners.delete(l.id);
    l.net.close();
    for (const s of l.sockets) s.destroy();
    released.push(l.port);
  }

  async function doSync(): Promise<void> {
    if (closed) return;
    for (const l of [...listeners.values()]) {
      const inst = state.instances.get(l.id);
      if (!inst || inst.restarts !== l.gen || inst.intended !== 'running' || inst.failure) shut(l);
    }
    for (const id of [...hostKeys.keys()]) if (!state.instances.has(id)) hostKeys.delete(id);
    for (const inst of state.instances.values()) {
      if (inst.intended !== 'running' || inst.failure || inst.runtype.includes('args') || listeners.has(inst.id)) continue;
      await open(inst);
    }
  }

  return {
    sync() {
      chain = chain.then(doSync).catch((e: unknown) => log(`ssh: ${(e as Error).message}`));
      return chain;
    },
    portOf: (id) => listeners.get(id)?.port,
    async close() {
      closed = true;
      await chain;
      for (const l of [...listeners.values()]) shut(l);
      for (const c of children) c.kill('SIGKILL');
      state.sshListenPort = undefined;
    },
  };
}
