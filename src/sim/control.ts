// Typed client for the simulator's /_sim/ test-control endpoints (plain fetch).

import type { OutboxMessage, RequestLogEntry } from './state';

export type { OutboxMessage, RequestLogEntry };

export type SimFault =
  | { kind: 'instance_state'; id: number; state: string | null }
  /** Refused before acting; `retryAfter` (seconds) is sent as the Retry-After header. */
  | { kind: 'http_error'; status: number; error?: string; msg?: string; retryAfter?: number; path?: string; exact?: boolean; count?: number }
  /** The request does not take effect; the answer is `200 {"success": false, "msg": …}` (a refusal in a 2xx). */
  | { kind: 'refused'; msg?: string; path?: string; exact?: boolean; count?: number }
  /** The answer is delayed by `ms` after the request took effect (a client timeout then makes it ambiguous). */
  | { kind: 'slow'; ms: number; path?: string; exact?: boolean; count?: number }
  /** The request takes effect; the answer's body is not JSON. */
  | { kind: 'malformed'; path?: string; exact?: boolean; count?: number }
  /** The request takes effect; the answer stops half-way (Content-Length promises more) and the connection closes. */
  | { kind: 'truncated'; path?: string; exact?: boolean; count?: number }
  /** The request takes effect; the answer is valid JSON of the wrong shape (e.g. no new_contract). */
  | { kind: 'wrong_shape'; path?: string; exact?: boolean; count?: number }
  /** A 200 answer of `bytes` bytes; `declare` sends its Content-Length, otherwise it is chunked. */
  | { kind: 'huge'; bytes: number; declare?: boolean; path?: string; exact?: boolean; count?: number }
  /** The request takes effect; the connection is then reset without an answer. */
  | { kind: 'reset'; path?: string; exact?: boolean; count?: number }
  /** The next `count` created instances stay invisible to show and list for `seconds` of sim time. */
  | { kind: 'hidden'; seconds: number; count?: number }
  /** The v1 instance list ignores select_filters (answers every row), like a server that does not know it. */
  | { kind: 'unfiltered'; count?: number }
  | { kind: 'offer_taken'; offerId: number }
  /** Today era: the offer's machine cannot be scheduled (create → 410, or a stopped instance without cancel_unavail). */
  | { kind: 'offer_unschedulable'; offerId: number }
  /** Today era: the offer is on the caller's own machine (create → 403). */
  | { kind: 'offer_own'; offerId: number }
  | { kind: 'tfa_error'; error: string; count?: number }
  /**
   * The instance created after `skip` more creations (default 0: the next; only those on `offerId`
   * if given) never gets past loading (`never`), reads `state` (default 'exited') once its boot
   * ends (`fail`), boots in `seconds` (`slow`) or stays invisible to show and list for `seconds`
   * (`late`, default 30). Single and bulk creations both count; `count` (default 1) instances in a row.
   */
  | { kind: 'boot'; mode: 'fail' | 'never' | 'slow' | 'late'; skip?: number; offerId?: number; seconds?: number; state?: string; count?: number }
  | { kind: 'expire_session' };

export interface SimAccountPatch {
  legacy?: boolean;
  emailVerified?: boolean;
  team?: boolean;
  admin?: boolean;
  credit?: number;
  phone?: string | null;
  email?: string | null;
  /** The account's SSH key (null: none, so a VM creation fails with no_ssh_key_for_vm). */
  sshKey?: string | null;
}

/** Faults on the wire of ordinary requests (what the money invariant test must survive). */
/** @internal test */
export type WireFaultKind = Exclude<
  SimFault['kind'],
  'instance_state' | 'offer_taken' | 'offer_unschedulable' | 'offer_own' | 'tfa_error' | 'expire_session' | 'boot'
>;

export class SimControl {
  constructor(readonly url: string) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url.replace(/\/$/, '')}/_sim/${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T & { msg?: string };
    if (!res.ok) throw new Error(`sim control ${method} /_sim/${path} failed (${res.status}): ${json.msg ?? ''}`);
    return json;
  }

  async outbox(): Promise<OutboxMessage[]> {
    return (await this.call<{ messages: OutboxMessage[] }>('GET', 'outbox')).messages;
  }

  /** The most recent message on a channel; throws when none was sent. */
  async lastCode(channel: 'sms' | 'email'): Promise<OutboxMessage> {
    const all = (await this.outbox()).filter((m) => m.channel === channel);
    const last = all[all.length - 1];
    if (!last) throw new Error(`no ${channel} message in the simulator outbox`);
    return last;
  }

  /** Moves the simulated clock forward; returns the new sim time (Unix seconds). */
  async advance(seconds: number): Promise<number> {
    return (await this.call<{ now: number }>('POST', 'advance', { seconds })).now;
  }

  /** Current sim time (Unix seconds, fractional). */
  async now(): Promise<number> {
    return (await this.call<{ now: number }>('GET', 'clock')).now;
  }

  async fault(f: SimFault): Promise<void> {
    await this.call('POST', 'fault', f);
  }

  /** Switches the era the simulator plays ('today' or 'seed'), optionally the read-after-create lag. */
  async setEra(era: 'today' | 'seed', opts: { invisibleSeconds?: number } = {}): Promise<void> {
    await this.call('POST', 'era', { era, ...opts });
  }

  /** Per-endpoint rate limits: 'service', 'off', or seconds per endpoint (the rest off). */
  async setRateLimits(limits: 'service' | 'off' | Partial<Record<'show' | 'list' | 'update' | 'destroy' | 'create' | 'search', number>>): Promise<void> {
    await this.call('POST', 'rate-limits', { limits });
  }

  async reset(): Promise<void> {
    await this.call('POST', 'reset', {});
  }

  async setAccount(p: SimAccountPatch): Promise<void> {
    await this.call('POST', 'account', p);
  }

  async seed(p: { offers?: number; instances?: number }): Promise<{ offers: number; instances: number }> {
    return this.call('POST', 'seed', p);
  }

  /** A simulated username/password login: the tfa_secret for the logged-out 2FA flow. */
  async login(): Promise<string> {
    return (await this.call<{ tfa_secret: string }>('POST', 'login', {})).tfa_secret;
  }

  async requests(): Promise<RequestLogEntry[]> {
    return (await this.call<{ requests: RequestLogEntry[] }>('GET', 'requests')).requests;
  }

  /** Runs each instance's onstart for real from now on (or stops doing so); env: GPU_GUARD_* test knobs. */
  async runOnstart(enabled: boolean, env: Record<string, string | number> = {}, opts: { nvidiaSmi?: boolean } = {}): Promise<void> {
    await this.call('POST', 'onstart', { enabled, env, ...opts });
  }

  /** GPU utilisation (percent; one value per GPU) for the fake nvidia-smi and the list's gpu_util. */
  async setGpuUtil(id: number, util: number | number[]): Promise<void> {
    await this.call('POST', `instances/${id}/gpu`, { util });
  }

  /** Another renter outbids an interruptible instance: it stops while intended running; the minimum bid rises. */
  async outbid(id: number, minBid?: number): Promise<number> {
    return (await this.call<{ min_bid: number }>('POST', `instances/${id}/outbid`, minBid === undefined ? {} : { minBid })).min_bid;
  }

  /** The host raises the price of a running contract: a pending increase (src/sim/billing.ts). */
  async priceIncrease(id: number, opts: { gpuFactor?: number; diskFactor?: number; askDays?: number } = {}): Promise<number> {
    return (await this.call<{ pending_price_increase_id: number }>('POST', `instances/${id}/price-increase`, opts)).pending_price_increase_id;
  }

  /** The instance was created `seconds` earlier (its start_date and contract end move back). */
  async backdate(id: number, seconds: number): Promise<void> {
    await this.call('POST', `instances/${id}/backdate`, { seconds });
  }

  /** The instance's scratch folder (its HOME and the working directory of its shells). */
  async instanceHome(id: number): Promise<string> {
    return (await this.call<{ home: string }>('GET', `instances/${id}/home`)).home;
  }

  /** Finishes the boot of an instance now (it reads 'running' on the next show). */
  async finishBoot(id: number): Promise<void> {
    await this.call('POST', `instances/${id}/running`, {});
  }
}
