// The simulator's control endpoints (/_sim/*, only with testControl): the tests and the demo
// move the clock, flip the era, seed instances and offers, set the account and inject faults.
import { resetBilling } from './billing';
import { generateOffers } from './offers';
import { seedInstances } from './instanceCreate';
import { ERAS, SimState, dropHeldAnswers, randomKey, type Era } from './state';
import { instanceHome } from './sandbox';
import { resolveRateLimits, type RateLimitOption } from './rateLimits';
import { userRecord } from './tfaRules';
import { configureOnstart, setGpuUtil, stopAllOnstart } from './onstart';
import { bootFaultOf } from './bootFaults';

interface Reply {
  status: number;
  body: unknown;
}

const ok = (extra: Record<string, unknown> = {}): Reply => ({ status: 200, body: { success: true, ...extra } });
const bad = (msg: string): Reply => ({ status: 400, body: { success: false, error: 'bad_request', msg } });

/** The GET endpoints: what the tests read back (outbox, requests, clock, state, an instance's home). */
function readControl(state: SimState, path: string): Reply | undefined {
  let m: RegExpExecArray | null;
  if (path === '/_sim/outbox') return { status: 200, body: { messages: state.outbox } };
  if (path === '/_sim/requests') return { status: 200, body: { requests: state.requests } };
  if (path === '/_sim/clock') return { status: 200, body: { now: state.now(), offset: state.offset } };
  if (path === '/_sim/state') {
    return {
      status: 200,
      body: {
        now: state.now(),
        era: state.era,
        credit: state.user.credit,
        instances: [...state.instances.values()].map((i) => ({
          id: i.id,
          offerId: i.offer.id,
          intended: i.intended,
          failure: i.failure,
          overlay: i.overlay ?? null,
        })),
        faults: state.faults,
      },
    };
  }
  if ((m = /^\/_sim\/instances\/(\d+)\/home$/.exec(path))) {
    const inst = state.instances.get(Number(m[1]));
    if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${m[1]}.` } };
    return { status: 200, body: { home: instanceHome(state, inst.id) } };
  }
  return undefined;
}

/** POST /_sim/account: the account's flags, credit, contact details and legacy 2FA. */
function setAccount(state: SimState, json: Record<string, unknown>): Reply {
  const u = state.user;
  if (typeof json.emailVerified === 'boolean') u.emailVerified = json.emailVerified;
  if (typeof json.team === 'boolean') u.team = json.team;
  if (typeof json.admin === 'boolean') u.admin = json.admin;
  if (typeof json.credit === 'number') u.credit = json.credit;
  if (json.sshKey === null || typeof json.sshKey === 'string') u.ssh_key = (json.sshKey as string | null) ?? '';
  if (json.phone === null || typeof json.phone === 'string') u.phone = json.phone as string | null;
  if (json.email === null || typeof json.email === 'string') u.email = (json.email as string | null) ?? '';
  if (typeof json.legacy === 'boolean') {
    u.legacy = json.legacy;
    if (json.legacy) {
      // A legacy account: 2FA on, no method rows, no backup codes, the phone on file.
      state.tfa.enabled = true;
      state.tfa.methods = [];
      state.tfa.backupCodes = [];
      if (!u.phone) u.phone = '+14155550123';
    }
  }
  return ok({ user: userRecord(state) });
}

/** POST /_sim/fault: queue a fault ({kind, count?, path?, exact?, …}) or change an instance or offer. */
function addFault(state: SimState, json: Record<string, unknown>): Reply {
  const count = json.count === undefined ? 1 : Number(json.count);
  if (!Number.isInteger(count) || count < 1) return bad('count must be a positive integer');
  const p = typeof json.path === 'string' ? json.path : undefined;
  const exact = json.exact === true;
  switch (json.kind) {
    case 'instance_state': {
      const inst = state.instances.get(Number(json.id));
      if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${String(json.id)}.` } };
      state.accrue();
      inst.failure = json.state === null || json.state === undefined ? null : String(json.state);
      return ok();
    }
    case 'http_error': {
      const status = Number(json.status);
      // 200 with an error: the service's {"success": false, "error": ...} refusals.
      if (!Number.isInteger(status) || ((status < 400 || status > 599) && !(status === 200 && typeof json.error === 'string')))
        return bad('status must be an HTTP error status (or 200 with an error)');
      const retryAfter = json.retryAfter === undefined ? undefined : Number(json.retryAfter);
      if (retryAfter !== undefined && !(Number.isInteger(retryAfter) && retryAfter > 0)) return bad('retryAfter must be a positive whole number of seconds');
      state.faults.push({
        kind: 'http_error',
        status,
        error: json.error as string | undefined,
        msg: json.msg as string | undefined,
        retryAfter,
        path: p,
        exact,
        count,
      });
      return ok();
    }
    case 'refused':
      state.faults.push({ kind: 'refused', msg: json.msg as string | undefined, path: p, exact, count });
      return ok();
    case 'slow': {
      const ms = Number(json.ms);
      if (!Number.isFinite(ms) || ms < 0) return bad('ms must be a non-negative number');
      state.faults.push({ kind: 'slow', ms, path: p, exact, count });
      return ok();
    }
    case 'malformed':
    case 'truncated':
    case 'wrong_shape':
    case 'reset':
      state.faults.push({ kind: json.kind, path: p, exact, count });
      return ok();
    case 'huge': {
      const bytes = Number(json.bytes);
      if (!Number.isInteger(bytes) || bytes < 0) return bad('bytes must be a non-negative integer');
      state.faults.push({ kind: 'huge', bytes, declare: json.declare === true, path: p, exact, count });
      return ok();
    }
    case 'hidden': {
      const seconds = Number(json.seconds);
      if (!Number.isFinite(seconds) || seconds < 0) return bad('seconds must be a non-negative number');
      state.faults.push({ kind: 'hidden', seconds, count });
      return ok();
    }
    case 'unfiltered':
      state.faults.push({ kind: 'unfiltered', count });
      return ok();
    case 'boot': {
      const f = bootFaultOf(json, count);
      if (typeof f === 'string') return bad(f);
      state.faults.push(f);
      return ok();
    }
    case 'tfa_error':
      if (typeof json.error !== 'string') return bad('error must be a 2FA error code');
      state.faults.push({ kind: 'tfa_error', error: json.error, count });
      return ok();
    case 'offer_unschedulable':
    case 'offer_own': {
      const id = Number(json.offerId);
      if (!state.offers.some((o) => o.id === id))
        return { status: 404, body: { success: false, error: 'not_found', msg: `No offer ${String(json.offerId)}.` } };
      (json.kind === 'offer_own' ? state.ownOffers : state.unschedulable).add(id);
      return ok();
    }
    case 'offer_taken': {
      const offer = state.offers.find((o) => o.id === Number(json.offerId));
      if (!offer) return { status: 404, body: { success: false, error: 'not_found', msg: `No offer ${String(json.offerId)}.` } };
      offer.taken = true;
      return ok();
    }
    case 'expire_session':
      for (const s of state.sessions.values()) s.expired = true;
      return ok();
    default:
      return bad(`unknown fault kind '${String(json.kind)}'`);
  }
}

export function control(state: SimState, method: string, path: string, json: Record<string, unknown>): Reply {
  let m: RegExpExecArray | null;
  if (method === 'GET') {
    const r = readControl(state, path);
    if (r) return r;
  }
  if (method !== 'POST') return { status: 404, body: { success: false, error: 'not_found', msg: `No control endpoint ${method} ${path}.` } };
  if (path === '/_sim/advance') {
    const s = Number(json.seconds);
    if (!Number.isFinite(s) || s < 0) return bad('seconds must be a non-negative number');
    return ok({ now: state.advance(s) });
  }
  if (path === '/_sim/login') {
    // stands for the regular username/password login, which answers a 2FA account with a tfa_secret
    const secret = randomKey(16);
    state.loginSecrets.add(secret);
    return ok({ tfa_secret: secret });
  }
  if (path === '/_sim/era') {
    // Flip the service the simulator plays at run time (and optionally the read-after-create lag).
    if (json.era !== undefined) {
      if (!ERAS.includes(json.era as Era)) return bad(`era must be one of ${ERAS.join(', ')}`);
      state.era = json.era as Era;
    }
    if (json.invisibleSeconds !== undefined) {
      const n = Number(json.invisibleSeconds);
      if (!Number.isFinite(n) || n < 0) return bad('invisibleSeconds must be a non-negative number');
      state.config.invisibleSeconds = n;
    }
    return ok({ era: state.era, invisibleSeconds: state.config.invisibleSeconds });
  }
  if (path === '/_sim/rate-limits') {
    try {
      state.rateLimits = resolveRateLimits(json.limits as RateLimitOption);
    } catch (e) {
      return bad((e as Error).message);
    }
    state.lastCalls.clear();
    state.penalties.clear();
    return ok({ limits: state.rateLimits });
  }
  if (path === '/_sim/reset') {
    resetState(state);
    return ok();
  }
  if (path === '/_sim/account') return setAccount(state, json);
  if (path === '/_sim/seed') {
    if (json.offers !== undefined) {
      const n = Number(json.offers);
      if (!Number.isInteger(n) || n < 0) return bad('offers must be a non-negative integer');
      const rented = new Set([...state.instances.values()].map((i) => i.offer));
      state.offers = [...rented, ...generateOffers(state.config.seed, n).filter((o) => ![...rented].some((r) => r.id === o.id))];
    }
    if (json.instances !== undefined) {
      const n = Number(json.instances);
      if (!Number.isInteger(n) || n < 0) return bad('instances must be a non-negative integer');
      seedInstances(state, n);
    }
    return ok({ offers: state.offers.length, instances: state.instances.size });
  }
  if ((m = /^\/_sim\/instances\/(\d+)\/running$/.exec(path))) {
    const inst = state.instances.get(Number(m[1]));
    if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${m[1]}.` } };
    state.accrue();
    inst.intended = 'running';
    inst.everStarted = true;
    inst.bootStart = state.now() - inst.bootSeconds;
    return ok();
  }
  if (path === '/_sim/onstart') {
    // Run each instance's onstart for real (off by default): { enabled, env?: {GPU_GUARD_*: value}, nvidiaSmi? }
    if (typeof json.enabled !== 'boolean') return bad('enabled must be true or false');
    if (json.env !== undefined && (json.env === null || typeof json.env !== 'object' || Array.isArray(json.env))) return bad('env must be an object');
    try {
      configureOnstart(state, { enabled: json.enabled, env: json.env as Record<string, unknown> | undefined, nvidiaSmi: json.nvidiaSmi !== false });
    } catch (e) {
      return bad((e as Error).message);
    }
    return ok();
  }
  if ((m = /^\/_sim\/instances\/(\d+)\/gpu$/.exec(path))) {
    const inst = state.instances.get(Number(m[1]));
    if (!inst) return { status: 404, body: { success: false, error: 'not_found', msg: `No instance ${m[1]}.` } };
    const util = Array.isArray(json.util) ? json.util : [json.util];
    if (!util.length || util.some((u) => typeof u !== 'number' || !Number.isFinite(u) || u < 0 || u > 100))
      return bad('util must be a percentage or a list of them (one per GPU)');
    setGpuUtil(state, inst, util as number[]);
    return ok();
  }
  if (path === '/_sim/fault') return addFault(state, json);
  return { status: 404, body: { success: false, error: 'not_found', msg: `No control endpoint ${method} ${path}.` } };
}

function resetState(state: SimState): void {
  dropHeldAnswers(state);
  stopAllOnstart(state);
  configureOnstart(state, { enabled: false });
  const fresh = new SimState(state.config);
  // The SSH servers stay on, and ids never repeat (see SimIds).
  const { sshListenPort, ids } = state;
  Object.assign(state, fresh, { sshListenPort, ids });
  resetBilling(state);
  if (state.config.instances > 0) seedInstances(state, state.config.instances);
}
