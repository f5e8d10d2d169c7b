// Shared test plumbing: a simulator per test file, a capturing logger, a client factory.
import { startSimulator, type RunningSim } from '../../../src/sim';
import { SimControl } from '../../../src/sim/control';
import { createApiClient, type ApiClientOptions } from '../../../src/api/client';
import type { Credentials, Logger, ServiceApi } from '../../../src/api/types';

export const API_KEY = 'sim-api-key';

export interface CapturingLogger extends Logger {
  lines: string[];
  text(): string;
}

export function captureLogger(): CapturingLogger {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => {
    lines.push(`${level} ${m}`);
  };
  return { lines, text: () => lines.join('\n'), trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

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

export async function startHarness(opts: { instances?: number; bootSeconds?: number; rateLimitPerSecond?: number } = {}): Promise<Harness> {
  const sim = await startSimulator({ port: 0, testControl: true, bootSeconds: opts.bootSeconds ?? 60, seed: 1, instances: opts.instances ?? 0, ...(opts.rateLimitPerSecond ? { rateLimitPerSecond: opts.rateLimitPerSecond } : {}) });
  const ctl = new SimControl(sim.url);
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
        ...over,
      }),
    close: () => sim.close(),
  };
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
