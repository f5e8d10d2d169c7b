// Per-endpoint minimum intervals, as the live service enforces them (service-today.md
// sections 3 and 9): per key, a call sooner than the threshold after the last accepted one is a
// 429 with the body that endpoint really sends (plain text, {detail} or a rate_limit_exceeded error).
import { CREATE_PENALTY_SECONDS, NO_RATE_LIMITS, SERVICE_RATE_LIMITS, type LimitedEndpoint, type RateLimits, type SimState } from './state';

export type RateLimitOption = 'service' | 'off' | Partial<RateLimits>;

export function resolveRateLimits(r: RateLimitOption | undefined, perSecond?: number): RateLimits {
  if (perSecond !== undefined && perSecond > 0) {
    // The old option: N show-instance calls per second, every other endpoint unlimited.
    return { ...NO_RATE_LIMITS, show: 1 / perSecond };
  }
  if (r === undefined || r === 'off') return { ...NO_RATE_LIMITS };
  if (r === 'service') return { ...SERVICE_RATE_LIMITS };
  const out = { ...NO_RATE_LIMITS };
  for (const k of Object.keys(out) as LimitedEndpoint[]) {
    const v = r[k];
    if (v !== undefined) {
      if (!Number.isFinite(v) || v < 0) throw new Error(`rate limit of ${k} must be a non-negative number of seconds`);
      out[k] = v;
    }
  }
  return out;
}

/** `service`, `off`, or `show=2,list=1,...` (seconds) as the command line and /_sim/ take it. */
export function parseRateLimits(text: string): RateLimitOption {
  const t = text.trim();
  if (t === 'service' || t === 'off') return t;
  const out: Partial<RateLimits> = {};
  for (const part of t.split(',')) {
    const m = /^\s*(show|list|update|destroy|create|search)\s*=\s*([0-9.]+)\s*$/.exec(part);
    if (!m) throw new Error(`--rate-limits: '${part}' is not 'service', 'off' or endpoint=seconds (show, list, update, destroy, create, search)`);
    out[m[1] as LimitedEndpoint] = Number(m[2]);
  }
  return out;
}

/** The 429 reply when `token` calls `endpoint` too soon; records the call otherwise. */
export function rateLimit(state: SimState, token: string, endpoint: LimitedEndpoint): { status: number; body: unknown; text?: boolean } | undefined {
  const min = state.rateLimits[endpoint];
  if (!(min > 0)) return undefined;
  const key = `${token} ${endpoint}`;
  const now = state.now();
  const last = state.lastCalls.get(key);
  const penalty = state.penalties.get(key) ?? 0;
  if ((last !== undefined && now - last < min) || now < penalty) {
    if (endpoint === 'create') state.penalties.set(key, now + Math.min(CREATE_PENALTY_SECONDS, min * 3));
    const detail = `API requests too frequent endpoint threshold=${min.toFixed(1)}`;
    switch (endpoint) {
      case 'destroy':
        return { status: 429, body: { success: false, error: 'rate_limit_exceeded', msg: detail } };
      case 'list':
      case 'search':
        return { status: 429, body: detail, text: true };
      default:
        return { status: 429, body: { detail } };
    }
  }
  state.lastCalls.set(key, now);
  return undefined;
}
