// Fake sessions for the watchdog's tests: real TCP connections the watchdog sees in
// /proc/net/tcp, an "sshd" process (a program started under that name) listening on a port of
// its own, a Jupyter server's REST API, and processes with a given command line; and the lock
// that keeps the fake sshd's sessions of one test run out of another run's watchdogs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { after, before } from 'node:test';

export interface TcpServer {
  port: number;
  /** An established connection to it (destroy() ends it). */
  connect(): Promise<Socket>;
  close(): Promise<void>;
}

/** An established loopback connection to `port`. */
async function connection(port: number): Promise<Socket> {
  const c = connect(port, '127.0.0.1');
  c.on('error', () => undefined);
  await once(c, 'connect');
  return c;
}

/** A loopback TCP server that keeps every connection open. */
export async function tcpServer(): Promise<TcpServer> {
  const sockets = new Set<Socket>();
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  return {
    port,
    connect: () => connection(port),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

export interface FakeSshd {
  port: number;
  /** Opens a connection to it and waits until the fake sshd accepted it. */
  connect(): Promise<Socket>;
  stop(): void;
}

function python(): string {
  const p = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  if (p.status !== 0) throw new Error('python3 is needed for the fake sshd');
  return p.stdout.trim();
}

/**
 * A process named sshd (its /proc/<pid>/comm) that listens on a port of its own and accepts
 * connections: what an image whose sshd runs on another port shows the watchdog.
 */
export async function fakeSshd(): Promise<FakeSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-guard-sshd-'));
  const exe = join(dir, 'sshd');
  symlinkSync(python(), exe);
  const code =
    'import socket,sys\ns=socket.socket();s.bind(("127.0.0.1",0));s.listen(8)\nprint(s.getsockname()[1],flush=True)\nk=[]\nwhile True:\n c,_=s.accept();k.append(c);print("accepted",flush=True)';
  const child: ChildProcess = spawn(exe, ['-c', code], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (d) => {
    out += String(d);
    for (const w of waiters.splice(0)) w();
  });
  const next = (test: () => boolean) =>
    new Promise<void>((res) => {
      const check = () => (test() ? res() : waiters.push(check));
      check();
    });
  await next(() => /^\d+\n/.test(out));
  const port = Number(out.split('\n')[0]);
  let accepted = 0;
  return {
    port,
    connect: async () => {
      const c = await connection(port);
      accepted++;
      await next(() => (out.match(/accepted/g) ?? []).length >= accepted);
      return c;
    },
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface FakeJupyter {
  port: number;
  setBusy(busy: boolean): void;
  /** How many API reads came with the right token. */
  authorised(): number;
  close(): Promise<void>;
}

/** Jupyter's REST API as far as the watchdog reads it: GET /api/kernels with its token. */
export async function fakeJupyter(token: string): Promise<FakeJupyter> {
  let busy = false;
  let ok = 0;
  const srv = createHttpServer((req, res) => {
    if (req.url !== '/api/kernels' || req.headers.authorization !== `token ${token}`) {
      res.writeHead(403).end('{"message":"Forbidden"}');
      return;
    }
    ok++;
    res.writeHead(200, { 'Content-Type': 'application/json', Connection: 'close' });
    res.end(JSON.stringify([{ id: 'k1', name: 'python3', execution_state: busy ? 'busy' : 'idle', connections: 1 }], null, 1));
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return {
    port: (srv.address() as { port: number }).port,
    setBusy: (b) => void (busy = b),
    authorised: () => ok,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

/** A process whose command line ends in `words` (e.g. "python train.py"): sh -c 'sleep' with them as arguments. */
export function processWith(words: string): { stop(): void } {
  const child = spawn('sh', ['-c', 'sleep 600; :', ...words.split(' ')], { stdio: 'ignore' });
  return { stop: () => void child.kill('SIGKILL') };
}

/**
 * Holds a lock every test run on this computer shares (flock(1) on a file in the temp folder) until
 * release(). The watchdog reads the machine's /proc: a fake sshd with a session in one run is a
 * session to every watchdog of every other run at that moment ("ssh 3" where a cell expects 1 or 2,
 * "keeps running" where it expects "stops"). The kernel drops the lock when the holder dies.
 * Without flock (not Linux) the tests run unlocked, as before.
 */
async function machineLock(name: string, mode: 'shared' | 'exclusive'): Promise<{ release(): Promise<void> }> {
  const child = spawn('flock', [`--${mode}`, join(tmpdir(), `${name}.lock`), 'sh', '-c', 'echo held; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((res) => child.on('close', () => res()));
  const held = await new Promise<boolean>((res) => {
    child.stdout!.once('data', () => res(true));
    child.once('error', () => res(false));
    child.once('exit', () => res(false));
  });
  return {
    release: async () => {
      if (!held) return;
      child.stdin!.end();
      await exited;
    },
  };
}

/**
 * Holds the machine's sshd lock from a test file's first test to its end: exclusive for the file that
 * starts fake sshds with sessions (the scenario matrix), shared for files whose watchdogs must not
 * count them (they may run together).
 */
export function holdSshdLock(mode: 'shared' | 'exclusive'): void {
  let lock: Awaited<ReturnType<typeof machineLock>> | undefined;
  before(async () => (lock = await machineLock('gpu-rental-guard-sshd', mode)));
  after(() => lock?.release());
}
