// The API client's test plumbing: a simulator (the kit's) and clients for it.
import { perFile } from '../../kit/perFile';
import type { RunningSim, SimOptions } from '../../../src/sim';
import type { SimControl } from '../../../src/sim/control';
import { captureLogger, type CapturingLogger } from '../../kit/log';
import { startTestSim } from '../../kit/sim';
import { closeApiTransport, createApiClient, type ApiClientOptions } from '../../../src/api/client';
import type { Credentials, ServiceApi } from '../../../src/api/types';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/api/transport';

export const API_KEY = 'sim-api-key';

export function keyCredentials(key: string | undefined = API_KEY): Credentials {
  return { token: () => key };
}

export interface Harness {
  sim: RunningSim;
  ctl: SimControl;
  log: CapturingLogger;
  client(over?: Partial<ApiClientOptions>): ServiceApi;
  close(): Promise<void>;
}

/**
 * A simulator and clients for it. The simulator plays the `today` era unless told otherwise,
 * with no read-after-create lag and no rate limits (tests that need them turn them on), and the
 * clients do not pace (the simulator does not limit).
 */
export type HarnessOptions = { instances?: number; bootSeconds?: number; rateLimitPerSecond?: number } & Pick<
  SimOptions,
  'era' | 'invisibleSeconds' | 'rateLimits'
>;

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const sim = await startTestSim({
    bootSeconds: opts.bootSeconds ?? 60,
    instances: opts.instances ?? 0,
    era: opts.era ?? 'today',
    invisibleSeconds: opts.invisibleSeconds ?? 0,
    ...(opts.rateLimits ? { rateLimits: opts.rateLimits } : {}),
    ...(opts.rateLimitPerSecond ? { rateLimitPerSecond: opts.rateLimitPerSecond } : {}),
  });
  const ctl = sim.ctl;
  const log = captureLogger();
  return {
    sim,
    ctl,
    log,
    client: (over = {}) =>
      createApiClient({
        baseUrl: sim.url,
        credentials: keyCredentials(),
        log,
        timeoutMs: 5000,
        retry: { retries: 4, baseDelayMs: 1, maxDelayMs: 5 },
        pacing: 'off',
        ...over,
      }),
    close: () => sim.close(),
  };
}

/**
 * One harness for a test file: started before its tests (`onStarted` gets it then), closed after
 * them together with the client's shared connections.
 */
export function useHarness(opts: HarnessOptions, onStarted: (h: Harness) => void, o: { resetEach?: boolean } = {}): void {
  perFile('the API harness', () => startHarness(opts), {
    onStarted,
    afterClose: closeApiTransport,
    ...(o.resetEach ? { beforeEach: (h: Harness) => h.ctl.reset() } : {}),
  });
}

/** Asserts that a promise rejects with an ApiError and returns it. */
export async function rejection<T>(p: Promise<T>): Promise<import('../../../src/api/errors').ApiError> {
  try {
    await p;
  } catch (e) {
    const { isApiError } = await import('../../../src/api/errors');
    if (isApiError(e)) return e;
    throw new Error(`expected an ApiError, got ${e instanceof Error ? e.name + ': ' + e.message : String(e)}`);
  }
  throw new Error('expected a rejection, but the call succeeded');
}

// ---- a client without a server: its transport answers from a script ------------------------

/**
 * More requests than any test of one scripted client makes. Past it the script stops answering: a
 * client that retries without end (a planted bug in the retry rules) then waits on a request that
 * never settles, and the test runner fails the test as soon as nothing else is pending, instead
 * of the loop running until a timeout.
 */
const MAX_SCRIPTED_REQUESTS = 200;

/** A client whose transport answers each request with `answer(req)` (or throws what it throws). */
export function scripted(answer: (req: TransportRequest) => TransportResponse | Promise<TransportResponse>, over: Partial<ApiClientOptions> = {}) {
  const seen: TransportRequest[] = [];
  const log = captureLogger();
  const transport: Transport = {
    request: async (req) => {
      seen.push(req);
      if (seen.length > MAX_SCRIPTED_REQUESTS) return new Promise<never>(() => undefined);
      return answer(req);
    },
  };
  const api = createApiClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: keyCredentials(),
    log,
    transport,
    pacing: 'off',
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ...over,
  });
  return { api, seen, log };
}

/** An answer of the scripted transport: `body` as JSON (a string as it is), JSON content type unless told otherwise. */
export const json = (status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): TransportResponse => ({
  status,
  headers,
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

/** What the undici transport throws (src/api/transport.ts TransportError), by shape. */
export const transportError = (kind: 'network' | 'timeout' | 'aborted' | 'too_large', sent: boolean) =>
  Object.assign(new Error(`${kind} happened`), { name: 'TransportError', kind, sent });
