// Access to the simulator's test-control endpoints (/_sim/...) from integration tests.
import { simUrl } from './framework';

/** A thin client for the simulator's /_sim/ endpoints until src/sim/control.ts is wired in. */
export class SimControlClient {
  constructor(readonly url: string) {}
  async call<T = unknown>(path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/_sim/${path.replace(/^\/+/, '')}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`simulator control /_sim/${path} answered ${res.status}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** The simulator control helper for the simulator the runner started. */
export function simControl(): SimControlClient {
  return new SimControlClient(simUrl());
}
