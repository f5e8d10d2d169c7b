// Shared helpers for simulator tests: a started simulator and a tiny fetch wrapper.
import type { RunningSim, SimOptions } from '../../../src/sim';
import type { SimControl } from '../../../src/sim/control';
import { startTestSim, type StartedSim } from '../../kit/sim';
import { useTestSim } from '../../kit/simPerFile';

export interface Ctx {
  sim: RunningSim;
  ctl: SimControl;
  call(method: string, path: string, body?: unknown, key?: string | null): Promise<{ status: number; json: any; type: string | null }>;
}

export async function start(opts: SimOptions = {}): Promise<Ctx> {
  return withCall(await startTestSim(opts));
}

/** The simulator's context with call(), a fetch of its API. */
function withCall(sim: StartedSim): Ctx {
  const ctl = sim.ctl;
  const call: Ctx['call'] = async (method, path, body, key = 'sim-api-key') => {
    const headers: Record<string, string> = {};
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(sim.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json, type: res.headers.get('content-type') };
  };
  return { sim, ctl, call };
}

/** The id of a verified, rentable offer with direct ports (first search result). */
export async function anOffer(c: Ctx, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await c.call('POST', '/api/v0/bundles/', { verified: { eq: true }, rentable: { eq: true }, limit: 1, ...extra });
  if (!r.json.offers?.length) throw new Error('no offer found');
  return r.json.offers[0];
}

/** One simulator for a test file (the kit's), reset before each test; `set` receives it once started. */
export function useSim(set: (c: Ctx) => void, opts: SimOptions = {}): void {
  useTestSim(opts, (sim) => set(withCall(sim)));
}

/** A failure message from a response body without any secret in it (only error code and message). */
export function brief(json: unknown): string {
  if (json && typeof json === 'object') {
    const j = json as Record<string, unknown>;
    return `${String(j.error ?? '')}: ${String(j.msg ?? j.detail ?? '')}`;
  }
  return String(json).slice(0, 80);
}
