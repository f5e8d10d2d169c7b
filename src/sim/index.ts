// The service simulator: a real HTTP server that behaves like the rental service, for
// tests, the demo mode and manual runs (`node dist/sim.js --port 0`). No `vscode`, no src/api.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seedInstances } from './instanceCreate';
import { createPriceIncrease } from './billing';
import { configureOnstart, stopAllOnstart } from './onstart';
import { closeSandbox, setSandboxUrl } from './sandbox';
import { createHandler } from './server';
import { startSshServers, type SimSshServers } from './sshServer';
import { ERAS, SimState, dropHeldAnswers, type Era, type SimConfig } from './state';
import { parseRateLimits, resolveRateLimits, type RateLimitOption } from './rateLimits';

export { SimState, TEMPLATES, SERVICE_RATE_LIMITS, NO_RATE_LIMITS, ERAS } from './state';
export type { Era, LimitedEndpoint, RateLimits } from './state';
export { sshListenAddress } from './instances';
export { parseRateLimits, resolveRateLimits } from './rateLimits';
export { totp, base32Decode, base32Encode } from './totp';

export interface SimOptions {
  /** Where the simulator's own events go (SSH listeners opened, and why one could not be); the command line prints them. */
  log?: (line: string) => void;
  host?: string;
  port?: number;
  apiKey?: string;
  readOnlyKey?: string;
  /** Seconds (sim clock) from creation to running. */
  bootSeconds?: number;
  seed?: number;
  offers?: number;
  /** Seed this many already-running instances. */
  instances?: number;
  /** Enable the /_sim/ control endpoints (404 otherwise). */
  testControl?: boolean;
  /** Serve GET /_sim/inbox (the codes "sent" by e-mail and SMS, for the account's own key): the demo's inbox. */
  demoInbox?: boolean;
  /**
   * Which service to play: 'today' (the live service, service-today.md) or 'seed'
   * (service-api.md exactly). Default 'today'.
   */
  era?: Era;
  /**
   * Today era: seconds a new instance stays invisible to show and list. Default 0 in code (unit
   * tests opt in); the command line (`node dist/sim.js`, so the VS Code tier) and the demo use 3.
   */
  invisibleSeconds?: number;
  /**
   * Per-endpoint minimum seconds between calls of one key: 'service' (the live service's
   * thresholds), 'off', or some endpoints' values (the rest off). Default 'off' in code;
   * the command line (`node dist/sim.js`) defaults to 'service'.
   */
  rateLimits?: RateLimitOption;
  /** Deprecated: N show-instance calls per second, the other endpoints unlimited (overrides rateLimits). */
  rateLimitPerSecond?: number;
  /** The host of the first seeded instance has raised its price: one pending increase (the demo). */
  pendingPriceIncrease?: boolean;
  /** Run each instance's onstart for real with /bin/sh (src/sim/onstart.ts). Off by default; on in the demo. */
  runOnstart?: boolean;
  /**
   * The demo's locks (SimConfig.demoLock): the key only in the Authorization header, JSON bodies
   * only as application/json, a random read-only key, and of an onstart only the idle guard runs,
   * as `guardScript` (src/sim/guardOnly.ts; without it no onstart runs). Give a random `apiKey`.
   */
  demoLock?: boolean;
  /** With demoLock: the watchdog script (src/guard/watchdog.sh) the demo runs for an onstart's idle guard. */
  guardScript?: string;
  /** With runOnstart: the idle guard's tick in seconds (GPU_GUARD_TICK), so the demo shows it within minutes. */
  guardTick?: number;
  /** Wall-clock ms a requested log answers 404 before its text is there (default 900). */
  logDelayMs?: number;
  /**
   * Real SSH servers (loopback only) for running instances; default true. A session there is a
   * /bin/sh on this machine as the local user, in the instance's scratch folder.
   */
  ssh?: boolean;
}

export interface RunningSim {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
  state: SimState;
  /** The SSH servers, when on. */
  ssh?: SimSshServers;
}

/** The environment variable `node dist/sim.js` reads its key from (`npm run demo` sets a random one). */
export const SIM_KEY_ENV = 'GPU_RENTAL_SIM_API_KEY';

/** The read-after-create lag of the served simulator and the demo (today era). */
export const CLI_INVISIBLE_SECONDS = 3;

export function simConfig(opts: SimOptions = {}): SimConfig {
  return {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    apiKey: opts.apiKey ?? (opts.demoLock ? randomKey() : 'sim-api-key'),
    readOnlyKey: opts.readOnlyKey ?? (opts.demoLock ? randomKey() : 'sim-read-only-key'),
    bootSeconds: opts.bootSeconds ?? 60,
    seed: opts.seed ?? 1,
    offers: opts.offers ?? 300,
    instances: opts.instances ?? 0,
    testControl: opts.testControl ?? false,
    demoInbox: opts.demoInbox ?? false,
    logDelayMs: opts.logDelayMs ?? 900,
    ssh: opts.ssh ?? true,
    era: opts.era ?? 'today',
    invisibleSeconds: opts.invisibleSeconds ?? 0,
    rateLimits: resolveRateLimits(opts.rateLimits, opts.rateLimitPerSecond),
    demoLock: opts.demoLock ?? false,
    ...(opts.demoLock ? { guardOnly: { script: opts.guardScript ?? '' } } : {}),
  };
}

/**
 * The simulator of Try Demo Mode: locked to the window that starts it (a random key, only in the
 * header; JSON bodies only; of an onstart only the idle guard runs, as `guardScript`), with two
 * running instances, a pending price increase, the inbox, and the service's lag and rate limits.
 */
export function demoSimOptions(o: { apiKey: string; guardScript: string; guardTick: number }): SimOptions {
  return {
    port: 0,
    host: '127.0.0.1',
    apiKey: o.apiKey,
    demoLock: true,
    guardScript: o.guardScript,
    runOnstart: true,
    guardTick: o.guardTick,
    bootSeconds: 20,
    seed: Date.now() % 100_000,
    instances: 2,
    pendingPriceIncrease: true,
    demoInbox: true,
    era: 'today',
    invisibleSeconds: CLI_INVISIBLE_SECONDS,
    rateLimits: 'service',
  };
}

/** A key nobody else knows: 32 random bytes, hex. */
export function randomKey(): string {
  return randomBytes(32).toString('hex');
}

export async function startSimulator(opts: SimOptions = {}): Promise<RunningSim> {
  const config = simConfig(opts);
  const state = new SimState(config);
  if (config.instances > 0) seedInstances(state, config.instances);
  const first = [...state.instances.values()][0];
  if (opts.pendingPriceIncrease && first) createPriceIncrease(state, first);
  const ssh = config.ssh ? startSshServers(state, { ...(opts.log ? { log: opts.log } : {}) }) : undefined;
  await ssh?.sync();
  const server: Server = createServer(createHandler(state, ssh ? () => ssh.sync() : undefined));
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${hostForUrl}:${port}`;
  setSandboxUrl(state, url);
  if (opts.runOnstart) configureOnstart(state, { enabled: true, ...(opts.guardTick ? { env: { GPU_GUARD_TICK: opts.guardTick } } : {}) });
  return {
    url,
    port,
    host: config.host,
    state,
    ...(ssh ? { ssh } : {}),
    close: async () => {
      dropHeldAnswers(state);
      stopAllOnstart(state);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await ssh?.close();
      closeSandbox(state);
    },
  };
}

export function parseArgs(argv: string[]): SimOptions {
  const o: SimOptions = {};
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n)) throw new Error(`${flag} needs a number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => argv[++i];
    switch (a) {
      case '--host':
        o.host = next();
        break;
      case '--port':
        o.port = num(a, next());
        break;
      case '--api-key':
        o.apiKey = next();
        break;
      case '--read-only-key':
        o.readOnlyKey = next();
        break;
      case '--boot-seconds':
        o.bootSeconds = num(a, next());
        break;
      case '--seed':
        o.seed = num(a, next());
        break;
      case '--offers':
        o.offers = num(a, next());
        break;
      case '--instances':
        o.instances = num(a, next());
        break;
      case '--rate-limit':
        o.rateLimitPerSecond = num(a, next());
        break;
      case '--log-delay-ms':
        o.logDelayMs = num(a, next());
        break;
      case '--rate-limits':
        o.rateLimits = parseRateLimits(next() ?? '');
        break;
      case '--era': {
        const e = next();
        if (!ERAS.includes(e as Era)) throw new Error(`--era must be one of ${ERAS.join(', ')}`);
        o.era = e as Era;
        break;
      }
      case '--invisible-seconds':
        o.invisibleSeconds = num(a, next());
        break;
      case '--test-control':
        o.testControl = true;
        break;
      case '--run-onstart':
        o.runOnstart = true;
        break;
      case '--guard-tick':
        o.guardTick = num(a, next());
        break;
      case '--no-ssh':
        o.ssh = false;
        break;
      case '--demo-inbox':
        o.demoInbox = true;
        break;
      case '--demo':
        o.demoLock = true;
        break;
      case '--guard-script':
        o.guardScript = readFileSync(next() ?? '', 'utf8');
        break;
      case '--pending-price-increase':
        o.pendingPriceIncrease = true;
        break;
      case '-h':
      case '--help':
        throw new Error('usage');
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

const USAGE =
  'usage: node dist/sim.js [--host 127.0.0.1] [--port N] [--api-key KEY] [--read-only-key KEY] [--boot-seconds S] ' +
  '[--seed N] [--offers N] [--instances N] [--era today|seed] [--invisible-seconds S] [--log-delay-ms N] [--test-control] [--run-onstart] [--guard-tick S] [--no-ssh] [--demo-inbox] [--demo --guard-script FILE] [--pending-price-increase]\n' +
  '  [--rate-limits service|off|show=2,list=1,create=4.5,search=6,update=1,destroy=3]\n' +
  'Running instances get real SSH servers on 127.0.0.1 (a /bin/sh on this machine, as you, in a scratch folder); --no-ssh turns them off.';

async function main(): Promise<void> {
  let opts: SimOptions;
  try {
    opts = { rateLimits: 'service', invisibleSeconds: CLI_INVISIBLE_SECONDS, ...parseArgs(process.argv.slice(2)) };
    // The key from the environment, not the command line (which every local user can read).
    const envKey = process.env[SIM_KEY_ENV];
    if (envKey && opts.apiKey === undefined) opts.apiKey = envKey;
    if (opts.demoLock && opts.apiKey === undefined) throw new Error(`--demo needs its key in ${SIM_KEY_ENV}`);
  } catch (e) {
    if ((e as Error).message === 'usage') {
      console.log(USAGE);
      process.exit(0);
    }
    console.error(`${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const sim = await startSimulator({ log: (line) => console.log(line), ...opts });
  console.log(`listening on ${sim.url}`);
  console.log(`era ${sim.state.era}; rate limits ${JSON.stringify(sim.state.rateLimits)}`);
  if (sim.ssh) console.log('SSH servers on 127.0.0.1 for running instances: each is a /bin/sh on this machine, as you (--no-ssh turns them off)');
  const stop = () => {
    sim.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Bundlers inline this file into tests too, where require.main === module also holds:
// run the CLI only when the running script is the simulator bundle itself.
const isCli = typeof require !== 'undefined' && require.main === module && /(^|[\\/])sim\.js$/.test(process.argv[1] ?? '');
if (isCli) {
  main().catch((e: unknown) => {
    console.error(`simulator failed to start: ${(e as Error).message}`);
    process.exit(1);
  });
}
