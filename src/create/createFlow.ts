// "Create Instance from Template" as a plain-TypeScript state machine with injected ports,
// so it runs in unit tests against the simulator and in VS Code behind a progress notification.
//
// Money rules this file exists to keep:
// - one click never rents twice: an ambiguous create (no answer, or an answer that cannot be
//   read) is reconciled through the instance list, asked again over the service's "not visible
//   yet" minute, before any retry;
// - a read that says "not found" is never proof that a machine is gone: only the list, by id
//   and by label, asked twice, settles it;
// - a rented instance is never left untracked: it is upserted into the store at once, persisted
//   as in-flight (so a restart resumes polling), read errors back off and keep tracking, and a
//   cancel or give-up hands it to the Instances view, named with its price;
// - a preselected offer is rented only when it satisfies the template's offer filters, or the
//   user said yes knowing why it does not (never when scripted with confirm: false);
// - an instance that fails while booting (exited/unknown/offline) is destroyed, not left billing.
import type { CreateInstanceRequest, Instance, Logger, Offer, ServiceApi } from '../api/types';
import type { InstanceStore, KeyValueStore } from '../core/ports';
import type { SshEntryWriter, SshOptions, SshOptionsByInstance } from '../ssh/sshTypes';
import { SSH_OPTIONS_STATE_KEY } from '../ssh/sshTypes';
import type { Template } from './templateSchema';
import { buildCreateRequest, buildOfferQuery, baseLabel, uniqueLabel } from './requestBuilder';
import { describeOffer, rankOffers } from './ranking';
import { locateCreation, reconcileCreation } from '../api/reconcile';
import { formatRate } from '../costs/costs';
import { offerSatisfies } from './offerFit';
import { INFLIGHT_STATE_KEY } from '../core/stateKeys';
import { apiErrorOf, errorCode, errorKind, errorStatus } from '../core/describeError';
import { GuardSetupError, guardedOnstart, type GuardRequest } from '../guard/plan';

export type Stage = 'searching' | 'confirming' | 'renting' | 'provisioning' | 'loading' | 'running' | 'writing-ssh' | 'done';

export const STAGES: readonly Stage[] = ['searching', 'renting', 'provisioning', 'loading', 'running', 'writing-ssh'];

export interface ProgressUpdate {
  stage: Stage;
  message: string;
  /** Rent attempt n of total. */
  attempt: number;
  maxAttempts: number;
  elapsedMs: number;
}

export interface FlowPrompts {
  /** Pick one of the ranked offers; undefined cancels (nothing was rented). */
  pickOffer(offers: readonly Offer[], template: Template): Promise<Offer | undefined>;
  /**
   * Confirm renting at this price (and bid). false cancels; `{ bidPrice }` rents with the bid
   * the user changed it to (interruptible templates only).
   */
  confirmRent(offer: Offer, template: Template, bidPrice: number | undefined): Promise<boolean | { bidPrice: number }>;
  /** The user cancelled (or the wait timed out) after an instance was rented. */
  keepOrDestroy(instanceId: number, reason: 'cancelled' | 'timeout'): Promise<'keep' | 'destroy'>;
  /**
   * A preselected offer fails some of the template's offer filters (`reasons`): rent it anyway?
   * Absent, or false, refuses. Never asked when the flow runs with confirm: false.
   */
  confirmOutsideTemplate?(offer: Offer, template: Template, reasons: readonly string[]): Promise<boolean>;
}

export interface Clock {
  now(): number;
  /** Rejects or resolves early when the signal aborts; either is fine. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** An instance this extension rented and has not yet seen running (survives restarts). */
export interface InflightCreation {
  instanceId: number;
  label: string;
  templatePath: string;
  ssh: SshOptions;
  targetState: 'running' | 'stopped';
  startedAt: number;
}

export { INFLIGHT_STATE_KEY };

export interface CreateFlowPorts {
  api: ServiceApi;
  log: Logger;
  prompts: FlowPrompts;
  progress(update: ProgressUpdate): void;
  clock: Clock;
  ssh: SshEntryWriter;
  /** Finds the instance an ambiguous create may have made. Default: reconcileCreation (src/api/reconcile.ts). */
  reconcile?(api: ServiceApi, label: string): Promise<Instance | undefined>;
  instances?: Pick<InstanceStore, 'upsert' | 'watch' | 'remove'>;
  /** globalState: in-flight creations and per-instance SSH options. */
  state: KeyValueStore;
  random?: () => number;
}

export interface CreateFlowInput {
  template: Template;
  /** Workspace-relative path (or URI) of the template file, persisted for resume. */
  templatePath: string;
  /** The onstart script to send (inline or read from onstartFile). */
  onstart?: string;
  /** The idle guard to install through onstart (src/guard/plan.ts); omitted: none. */
  guard?: GuardRequest;
  /** Preselected offer (from the offers view) or offer id. */
  offer?: Offer | number;
  /** false skips the price confirmation (scripts and tests). */
  confirm?: boolean;
  /** The template's expanded secret values (LoadedTemplate.secrets): masked in every error and log line. */
  secrets?: readonly string[];
  /** Rent attempts in total (offer taken, failed boot). Default 3. */
  maxAttempts?: number;
  /** Default 10 s: the spec's recommended poll interval. */
  pollIntervalMs?: number;
  /** Give up waiting (and ask keep/destroy) after this long. Default 30 minutes. */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

export type CreateFlowResult =
  | { outcome: 'running'; instance: Instance; alias?: string; sshError?: string; attempts: number }
  | { outcome: 'stopped'; instance: Instance; attempts: number }
  | { outcome: 'cancelled'; keptId?: number; destroyedId?: number; message: string }
  /** Rented, but the flow stopped watching it (reads kept failing): the Instances view tracks it on. */
  | { outcome: 'kept'; keptId: number; message: string; attempts: number }
  | { outcome: 'failed'; message: string; keptId?: number; attempts: number; logs?: FailedInstanceLog[] };

/** The log of an instance that failed while starting, requested before it was destroyed (its upload outlives it). */
export interface FailedInstanceLog {
  instanceId: number;
  status: string;
  resultUrl: string;
}

const TERMINAL = new Set(['exited', 'unknown', 'offline']);

export function userMessageOf(e: unknown): string {
  const api = apiErrorOf(e);
  if (api) return api.userMessage();
  return 'An unexpected error happened. Open the GPU Rental log for details and try again.';
}
function logText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : 'non-error thrown';
}

/** The offer was rented by someone else (or vanished) between search and creation. */
export function isOfferGone(e: unknown): boolean {
  const code = errorCode(e);
  // own_machine: a 403 because the offer is on one of the caller's machines; another offer will do.
  if (code === 'no_such_ask' || code === 'no_such_offer' || code === 'offer_unavailable' || code === 'ask_not_found' || code === 'own_machine') return true;
  // Judged by the body's error first: a 410 deprecated_endpoint or a 403 permission_denied is not a gone offer.
  if (code !== undefined) return false;
  const status = errorStatus(e);
  return errorKind(e) === 'http' && (status === 410 || status === 404 || status === 403);
}

/** Outcome of a create call whose result is unknown: timeout, reset, or the user's cancel mid-request. */
function isAmbiguous(e: unknown): boolean {
  const k = errorKind(e);
  return k === 'ambiguous' || k === 'timeout' || k === 'network' || k === 'aborted';
}

// ---- persisted in-flight creations -------------------------------------------------

export function readInflight(state: KeyValueStore): InflightCreation[] {
  const v = state.get<InflightCreation[]>(INFLIGHT_STATE_KEY);
  return Array.isArray(v) ? v.filter((r) => r && typeof r.instanceId === 'number') : [];
}

async function addInflight(state: KeyValueStore, r: InflightCreation): Promise<void> {
  await state.update(INFLIGHT_STATE_KEY, [...readInflight(state).filter((x) => x.instanceId !== r.instanceId), r]);
  const ssh = { ...(state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {}) };
  ssh[String(r.instanceId)] = r.ssh;
  await state.update(SSH_OPTIONS_STATE_KEY, ssh);
}

export async function removeInflight(state: KeyValueStore, id: number, forgetSsh = false): Promise<void> {
  await state.update(
    INFLIGHT_STATE_KEY,
    readInflight(state).filter((x) => x.instanceId !== id),
  );
  if (forgetSsh) {
    const ssh = { ...(state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {}) };
    delete ssh[String(id)];
    await state.update(SSH_OPTIONS_STATE_KEY, ssh);
  }
}

// ---- polling -----------------------------------------------------------------------

export type PollOutcome =
  | { kind: 'ready'; instance: Instance }
  | { kind: 'stopped'; instance: Instance }
  | { kind: 'terminal'; instance: Instance }
  | { kind: 'gone' }
  | { kind: 'aborted' }
  | { kind: 'timeout' }
  | { kind: 'error'; error: unknown };

export interface PollOptions {
  targetState: 'running' | 'stopped';
  /** The label the creation request carried: the list is searched by it as well as by id. */
  label?: string;
  intervalMs: number;
  maxWaitMs: number;
  signal?: AbortSignal;
  onUpdate?(instance: Instance): void;
}

const MAX_BACKOFF_MS = 120_000;
/** Minimum time between two calls per endpoint (service-today.md section 9). */
export const SHOW_THRESHOLD_MS = 2_000;
export const LIST_THRESHOLD_MS = 1_000;
/** "Not found" this soon after a creation means "not visible yet" (service-today.md section 3). */
export const NOT_VISIBLE_GRACE_MS = 60_000;
/** Consecutive list reads without the instance (by id or label) that confirm it is gone. */
export const GONE_CONFIRMATIONS = 2;
/** The creation endpoint's 429 penalty (service-today.md section 9: threshold 4.5 s, penalty 12 s). */
export const CREATE_PENALTY_MS = 12_000;
/** 429 answers to a creation that are waited out before the flow gives up (nothing was rented). */
const MAX_CREATE_WAITS = 3;
/** Consecutive failed status reads after which the flow hands the instance over (backoff capped at 2 min). */
export const MAX_READ_FAILURES = 30;

/** A read answering that the instance does not exist (404/400, or the service's empty answer). */
function saysNotFound(e: unknown): boolean {
  const k = errorKind(e);
  // The client's name for a 404/null within a minute of the creation (api/errors.ts).
  if (k === 'not_visible_yet') return true;
  if (k !== 'http') return false;
  const st = errorStatus(e);
  return st === 404 || st === 400 || errorCode(e) === 'no_such_instance';
}

/** Doubles the wait after a failed read, never below the endpoint's threshold, capped. */
function backoff(delay: number, threshold: number): number {
  return Math.min(Math.max(delay * 2, threshold), MAX_BACKOFF_MS);
}

/**
 * Polls show-instance until the instance is ready (running with ssh_host/ssh_port), or a
 * terminal state. A read error never ends the tracking early: 429, 5xx, timeouts, unreadable
 * answers back off (doubling, capped) and try again, up to MAX_READ_FAILURES in a row ('error',
 * the caller hands the instance over). "Not found" is not proof of gone: within the first
 * minute it is "not visible yet"; after that only the instance list, by id and by label,
 * asked GONE_CONFIRMATIONS times, settles it.
 */
export async function pollUntilReady(
  api: ServiceApi,
  id: number,
  clock: Clock,
  log: Logger,
  o: PollOptions,
): Promise<PollOutcome> {
  const start = clock.now();
  let delay = o.intervalMs;
  let failures = 0;
  let absent = 0;
  for (;;) {
    if (o.signal?.aborted) return { kind: 'aborted' };
    let inst: Instance | undefined;
    try {
      inst = await api.showInstance(id, o.signal ? { signal: o.signal } : undefined);
      delay = o.intervalMs;
      failures = 0;
      absent = 0;
    } catch (e) {
      if (o.signal?.aborted || errorKind(e) === 'aborted') return { kind: 'aborted' };
      if (saysNotFound(e)) {
        failures = 0;
        if (clock.now() - start < NOT_VISIBLE_GRACE_MS) {
          log.debug(`create: instance ${id} is not visible yet; asking again`);
        } else {
          const listed = await listShows(api, id, o.label, log, o.signal);
          if (listed === 'unknown') {
            // the list could not be read either: nothing is settled, keep tracking
          } else if (listed) {
            absent = 0;
            if (listed.id === id) inst = listed;
            log.debug(`create: show-instance says ${id} does not exist, but the instance list shows it; still tracking`);
          } else if (++absent >= GONE_CONFIRMATIONS) {
            log.warn(`create: the instance list shows neither instance ${id} nor the label "${o.label ?? '(none)'}" (${absent} reads in a row): it is gone`);
            return { kind: 'gone' };
          } else {
            log.info(`create: the instance list shows neither instance ${id} nor the label "${o.label ?? '(none)'}"; asking again before concluding anything`);
          }
        }
      } else {
        failures++;
        delay = backoff(delay, errorKind(e) === 'rate_limited' ? SHOW_THRESHOLD_MS : o.intervalMs);
        log.debug(`create: reading instance ${id} failed (${errorKind(e) ?? 'error'}${errorStatus(e) ? ` ${errorStatus(e)}` : ''}); next try in ${Math.round(delay / 1000)} s`);
        if (failures >= MAX_READ_FAILURES) return { kind: 'error', error: e };
      }
    }
    if (inst) {
      o.onUpdate?.(inst);
      if (o.targetState === 'stopped' && inst.state === 'stopped') return { kind: 'stopped', instance: inst };
      if (inst.state === 'running' && inst.ssh_host && inst.ssh_port) return { kind: 'ready', instance: inst };
      // exited/unknown/offline while intended running: the instance never reaches running.
      if (TERMINAL.has(inst.state) && (inst.intended_status ?? 'running') !== 'stopped') return { kind: 'terminal', instance: inst };
      if (inst.state === 'stopped' && o.targetState === 'running') return { kind: 'stopped', instance: inst };
    }
    if (clock.now() - start >= o.maxWaitMs) return { kind: 'timeout' };
    await clock.sleep(delay, o.signal);
  }
}

/** The list's row for the instance (by id, else by label), undefined when absent, 'unknown' when unreadable. */
async function listShows(api: ServiceApi, id: number, label: string | undefined, log: Logger, signal?: AbortSignal): Promise<Instance | undefined | 'unknown'> {
  try {
    return await locateCreation(api, { id, ...(label ? { label } : {}) }, signal ? { signal } : undefined);
  } catch (e) {
    log.debug(`create: the instance list could not be read (${errorKind(e) ?? 'error'}); instance ${id} stays tracked`);
    return 'unknown';
  }
}

/** "Instance 123 (2× RTX 4090, $0.80/h)": how a rented instance is named to the user. */
function named(id: number, offer: Offer): string {
  return `Instance ${id} (${offer.num_gpus}× ${offer.gpu_name}, ${formatRate(offer.dph_total, offer.dph_total < 1 ? 3 : 2)})`;
}

type Reconciled = { found: Instance } | { absent: true; reads: number } | { unknown: true; error: unknown };

/**
 * After an ambiguous create: asks the list for the request's label until it shows it, or it
 * has not shown it in at least two reads spanning the "not visible yet" minute. Failed reads
 * back off and ask again. Not cancellable: what happened must be known before anything else.
 */
async function reconcileAmbiguous(ports: CreateFlowPorts, label: string, intervalMs: number): Promise<Reconciled> {
  const { api, clock, log } = ports;
  const start = clock.now();
  let reads = 0;
  let failures = 0;
  let delay = Math.max(intervalMs, LIST_THRESHOLD_MS);
  for (;;) {
    try {
      const found = await (ports.reconcile ?? reconcileCreation)(api, label);
      if (found) return { found };
      reads++;
      failures = 0;
      delay = Math.max(intervalMs, LIST_THRESHOLD_MS);
      const waited = clock.now() - start;
      if (reads >= GONE_CONFIRMATIONS && waited >= NOT_VISIBLE_GRACE_MS) return { absent: true, reads };
      log.info(`create: the instance list does not show "${label}" yet (read ${reads}); asking again in ${Math.round(delay / 1000)} s`);
    } catch (e) {
      failures++;
      log.warn(`create: could not read the instance list to look for "${label}" (${logText(e)})`);
      if (failures >= MAX_READ_FAILURES / 3) return { unknown: true, error: e };
      delay = backoff(delay, LIST_THRESHOLD_MS);
    }
    await clock.sleep(delay);
  }
}

// ---- the flow ----------------------------------------------------------------------

export async function runCreateFlow(ports: CreateFlowPorts, input: CreateFlowInput): Promise<CreateFlowResult> {
  const { api, log, clock } = ports;
  let t = input.template;
  // Elapsed time counts from the click on Rent: the search and the confirmation are not waiting.
  let startedAt = clock.now();
  const maxAttempts = Math.max(1, input.maxAttempts ?? 3);
  const intervalMs = input.pollIntervalMs ?? 10_000;
  const maxWaitMs = input.maxWaitMs ?? 30 * 60_000;
  const signal = input.signal;
  let bidPrice = t.offer?.type === 'bid' ? t.offer.bidPrice : undefined;
  const targetState = t.instance.target_state ?? 'running';
  const ssh: SshOptions = t.ssh ? { ...t.ssh } : {};
  let attempt = 0;
  const progress = (stage: Stage, message: string) =>
    ports.progress({ stage, message, attempt: Math.max(attempt, 1), maxAttempts, elapsedMs: clock.now() - startedAt });
  const cancelledBeforeRent = (): CreateFlowResult => ({ outcome: 'cancelled', message: 'Cancelled. Nothing was rented.' });

  // 1. search
  progress('searching', `Searching offers for "${t.name}"…`);
  let ranked: Offer[];
  try {
    const found = await api.searchOffers(buildOfferQuery(t), signal ? { signal } : undefined);
    ranked = rankOffers(found, { rank: t.offer?.rank ?? 'cheapest', maxDphTotal: t.offer?.maxDphTotal, bidPrice });
  } catch (e) {
    if (signal?.aborted || errorKind(e) === 'aborted') return cancelledBeforeRent();
    log.warn(`create: offer search failed: ${logText(e)}`);
    return { outcome: 'failed', message: `Searching offers failed. ${userMessageOf(e)}`, attempts: 0 };
  }
  log.info(`create: template "${t.name}": ${ranked.length} matching offer(s)`);

  // 2. pick
  let first: Offer | undefined;
  if (input.offer !== undefined) {
    const wanted = typeof input.offer === 'number' ? input.offer : input.offer.id;
    // The offer itself, read afresh by id (its current price), wherever a search listed it.
    first = ranked.find((o) => o.id === wanted);
    if (!first) {
      try {
        first = (await api.searchOffers({ offerId: wanted, type: t.offer?.type ?? 'on-demand', ...(t.offer?.verified === false ? { verified: false } : {}) }, signal ? { signal } : undefined)).find((o) => o.id === wanted);
      } catch (e) {
        if (signal?.aborted || errorKind(e) === 'aborted') return cancelledBeforeRent();
        log.debug(`create: reading offer ${wanted} again failed: ${logText(e)}`);
      }
      first ??= typeof input.offer === 'object' ? input.offer : undefined;
    }
    if (!first)
      return {
        outcome: 'failed',
        message: `Offer ${wanted} is no longer available (rented by someone else, or withdrawn). Nothing was rented. Search again and pick another offer.`,
        attempts: 0,
      };
    const reasons = offerSatisfies(t, first);
    if (reasons.length) {
      const why = `Offer ${wanted} (${describeOffer(first)}) does not fit template "${t.name}": ${reasons.join('; ')}.`;
      log.info(`create: ${why}`);
      if (input.confirm === false || !ports.prompts.confirmOutsideTemplate)
        return { outcome: 'failed', message: `${why} Nothing was rented. Pick an offer that fits, or change the template's offer filters.`, attempts: 0 };
      progress('confirming', why);
      if (!(await ports.prompts.confirmOutsideTemplate(first, t, reasons)) || signal?.aborted) return cancelledBeforeRent();
    }
  } else {
    if (ranked.length === 0)
      return {
        outcome: 'failed',
        message: `No offers match template "${t.name}". Loosen its offer requirements (maxDphTotal, gpuNames, minReliability, minGpuRamGb) and try again.`,
        attempts: 0,
      };
    first = await ports.prompts.pickOffer(ranked, t);
    if (!first || signal?.aborted) return cancelledBeforeRent();
  }
  const candidates: Offer[] = [first, ...ranked.filter((o) => o.id !== first.id)];

  // 3. confirm the price
  let confirmedPrice = first.dph_total;
  if (input.confirm !== false) {
    progress('confirming', `Confirm ${describeOffer(first)}`);
    const yes = await ports.prompts.confirmRent(first, t, bidPrice);
    if (!yes || signal?.aborted) return cancelledBeforeRent();
    if (typeof yes === 'object' && bidPrice !== undefined && Number.isFinite(yes.bidPrice) && yes.bidPrice > 0 && t.offer) {
      // The bid changed in the confirmation: the request's price is the template's bidPrice.
      bidPrice = yes.bidPrice;
      t = { ...t, offer: { ...t.offer, bidPrice } };
      log.info(`create: bid changed to ${formatRate(bidPrice, 3)} in the confirmation`);
    }
    startedAt = clock.now();
  }

  let createWaits = 0;
  const base = baseLabel(t);
  const triedMachines = new Set<number>();
  let lastProblem = '';
  const failedLogs: FailedInstanceLog[] = [];
  let ci = 0;

  while (attempt < maxAttempts) {
    // Next offer not on a machine that already failed us.
    let offer: Offer | undefined;
    while (ci < candidates.length) {
      const c = candidates[ci++]!;
      if (c.machine_id != null && triedMachines.has(c.machine_id)) continue;
      offer = c;
      break;
    }
    if (!offer) break;
    if (signal?.aborted) return cancelledBeforeRent();
    // Moving to a pricier match than the one confirmed needs a new yes.
    if (input.confirm !== false && bidPrice === undefined && offer.dph_total > confirmedPrice + 1e-9) {
      if (!(await ports.prompts.confirmRent(offer, t, bidPrice))) return cancelledBeforeRent();
      startedAt = clock.now();
      confirmedPrice = offer.dph_total;
    }
    attempt++;
    if (offer.machine_id != null) triedMachines.add(offer.machine_id);

    // 4. rent
    const label = uniqueLabel(base, ports.random);
    let onstart: string | undefined;
    try {
      onstart = guardedOnstart(input.onstart ?? t.instance.onstart, input.guard, offer.dph_total, (m) => log.warn(`create: ${m}`));
    } catch (e) {
      if (!(e instanceof GuardSetupError)) throw e;
      log.warn(`create: ${e.message}`);
      return { outcome: 'failed', message: `Nothing was rented. ${e.message}`, attempts: attempt };
    }
    const req: CreateInstanceRequest = buildCreateRequest(t, label, onstart);
    progress('renting', `Renting ${describeOffer(offer)}${bidPrice !== undefined ? ` (bid $${bidPrice}/h)` : ''} (${attempt}/${maxAttempts})`);
    log.info(`create: renting offer ${offer.id} as "${label}" (attempt ${attempt}/${maxAttempts})`);
    let id: number | undefined;
    try {
      const res = await api.createInstance(offer.id, req, { interruptible: bidPrice !== undefined, secrets: input.secrets ?? [], ...(signal ? { signal } : {}) });
      id = res.new_contract;
    } catch (e) {
      if (isOfferGone(e)) {
        lastProblem = `Offer ${offer.id} was rented by someone else.`;
        log.info(`create: offer ${offer.id} is gone (${errorCode(e) ?? errorStatus(e) ?? 'unavailable'}); trying the next match`);
        progress('renting', `${lastProblem} Trying the next match…`);
        continue;
      }
      if (errorKind(e) === 'rate_limited' && createWaits < MAX_CREATE_WAITS) {
        // A 429 refuses the request before it is processed (nothing was rented): wait out the
        // service's creation threshold and penalty (service-today.md section 9), then send it again.
        createWaits++;
        const waitMs = Math.max(CREATE_PENALTY_MS, (apiErrorOf(e)?.retryAfterSec ?? 0) * 1000);
        log.info(`create: renting offer ${offer.id} was refused as too frequent (429); sending it again in ${Math.round(waitMs / 1000)} s`);
        progress('renting', `The service asks to slow down; trying again in ${Math.round(waitMs / 1000)} s…`);
        await clock.sleep(waitMs, signal);
        if (signal?.aborted) return cancelledBeforeRent();
        attempt--; // not an attempt: the service did not look at it
        ci--;
        if (offer.machine_id != null) triedMachines.delete(offer.machine_id);
        continue;
      }
      if (!isAmbiguous(e)) {
        log.warn(`create: renting offer ${offer.id} failed: ${logText(e)}`);
        return { outcome: 'failed', message: `Renting failed. ${userMessageOf(e)}`, attempts: attempt };
      }
      // Unknown outcome: find out before anything else happens (even if the user cancelled).
      log.warn(`create: outcome of renting offer ${offer.id} is unknown (${errorKind(e)}${e instanceof Error && 'causeKind' in e && e.causeKind ? `: ${String(e.causeKind)}` : ''}); checking the instance list for "${label}"`);
      progress('renting', 'No readable answer from the service; checking whether the instance was created…');
      const rec = await reconcileAmbiguous(ports, label, intervalMs);
      if ('unknown' in rec) {
        log.error(`create: could not check for "${label}": ${logText(rec.error)}`);
        return {
          outcome: 'failed',
          message: `It is unknown whether offer ${offer.id} was rented (the service gave no readable answer, and the instance list could not be read). Refresh the Instances view before trying again so you do not rent twice; look for the label "${label}".`,
          attempts: attempt,
        };
      }
      if ('found' in rec) {
        id = rec.found.id;
        log.info(`create: the instance list shows instance ${id} labelled "${label}": the create had gone through`);
      } else if (signal?.aborted) {
        log.info(`create: the instance list showed no instance labelled "${label}" in ${rec.reads} reads; cancelled`);
        return { outcome: 'cancelled', message: `Cancelled. The instance list shows no instance labelled "${label}".` };
      } else {
        lastProblem = `The service gave no readable answer when renting offer ${offer.id}, and the instance list showed no instance for that request.`;
        log.info(`create: the instance list showed no instance labelled "${label}" in ${rec.reads} reads over a minute; trying again`);
        ci--; // same offer again: the list does not show it rented
        if (offer.machine_id != null) triedMachines.delete(offer.machine_id);
        continue;
      }
    }

    // 5. track at once
    const record: InflightCreation = { instanceId: id, label, templatePath: input.templatePath, ssh, targetState, startedAt: Date.now() };
    await addInflight(ports.state, record);
    ports.instances?.upsert({ id, actual_status: null, state: 'provisioning', label, intended_status: targetState, gpu_name: offer.gpu_name, num_gpus: offer.num_gpus, dph_total: offer.dph_total });
    ports.instances?.watch(id);
    progress('provisioning', `Instance ${id} rented; provisioning…`);

    // 6. poll
    const outcome = await pollUntilReady(api, id, clock, log, {
      targetState,
      label,
      intervalMs,
      maxWaitMs,
      signal,
      onUpdate: (inst) => {
        ports.instances?.upsert(inst);
        if (inst.state === 'loading') progress('loading', `Instance ${id}: loading image…${inst.status_msg ? ` ${inst.status_msg}` : ''}`);
        else if (inst.state === 'provisioning') progress('provisioning', `Instance ${id}: provisioning…`);
        else if (inst.state === 'running') progress('running', `Instance ${id} is running; waiting for SSH details…`);
      },
    });

    switch (outcome.kind) {
      case 'ready':
      case 'stopped': {
        const inst = outcome.instance;
        if (outcome.kind === 'stopped') {
          await removeInflight(ports.state, id);
          return { outcome: 'stopped', instance: inst, attempts: attempt };
        }
        progress('writing-ssh', `Instance ${id} is running; writing the SSH entry…`);
        let alias: string | undefined;
        let sshError: string | undefined;
        try {
          alias = await ports.ssh.writeEntry(inst, ssh);
        } catch (e) {
          log.warn(`create: writing the SSH entry for ${id} failed: ${logText(e)}`);
          sshError = `The instance is running, but its SSH entry could not be written (${e instanceof Error ? e.message : 'unknown error'}). Use "Copy SSH Command" instead, or fix the problem and reconnect.`;
        }
        await removeInflight(ports.state, id);
        progress('done', `Instance ${id} is running${alias ? ` as ${alias}` : ''}.`);
        return { outcome: 'running', instance: inst, attempts: attempt, ...(alias ? { alias } : {}), ...(sshError ? { sshError } : {}) };
      }
      case 'terminal': {
        const st = outcome.instance.actual_status ?? outcome.instance.state;
        lastProblem = `Instance ${id} on offer ${offer.id} became "${st}" while starting.`;
        // Ask for its log before destroying it: the upload outlives the instance, so "why did it fail?" stays answerable.
        try {
          const { result_url } = await api.requestLogs(id, { tail: 1000 }, signal ? { signal } : undefined);
          failedLogs.push({ instanceId: id, status: st, resultUrl: result_url });
        } catch (e) {
          log.debug(`create: requesting the log of failed instance ${id} failed: ${logText(e)}`);
        }
        log.warn(`create: ${lastProblem} Destroying it and trying another offer.`);
        progress('provisioning', `${lastProblem} Destroying it and trying another offer…`);
        const destroyed = await destroy(ports, id);
        if (!destroyed)
          return {
            outcome: 'failed',
            message: `${lastProblem} It could not be destroyed and is still billing for disk. Destroy it from the Instances view.`,
            keptId: id,
            attempts: attempt,
            ...(failedLogs.length ? { logs: failedLogs } : {}),
          };
        continue;
      }
      case 'gone':
        // Confirmed through the list (by id and label, twice), not by a failed read.
        await removeInflight(ports.state, id, true);
        ports.instances?.remove(id);
        lastProblem = `Instance ${id} disappeared while starting (the instance list no longer shows it).`;
        log.warn(`create: ${lastProblem}`);
        continue;
      case 'aborted':
      case 'timeout': {
        const reason = outcome.kind === 'aborted' ? 'cancelled' : 'timeout';
        const answer = await ports.prompts.keepOrDestroy(id, reason);
        if (answer === 'destroy') {
          const ok = await destroy(ports, id);
          if (ok) return { outcome: 'cancelled', destroyedId: id, message: `Instance ${id} was destroyed; billing for it has stopped.` };
          return {
            outcome: 'failed',
            message: `Instance ${id} could not be destroyed and is still billing. Destroy it from the Instances view.`,
            keptId: id,
            attempts: attempt,
          };
        }
        log.info(`create: keeping instance ${id} (${reason}); it stays tracked and its SSH entry is written when it comes up`);
        return {
          outcome: 'cancelled',
          keptId: id,
          message: `${named(id, offer)} is kept and still billing. It is in the Instances view; its SSH entry is written when it is running.`,
        };
      }
      case 'error':
        log.warn(`create: reading instance ${id} kept failing (${logText(outcome.error)}); handing it to the Instances view`);
        return {
          outcome: 'kept',
          message: `${named(id, offer)} is rented and billing, but its status could not be read for a while (${userMessageOf(outcome.error)}). It stays in the Instances view, which keeps checking it; its SSH entry is written when it runs. Destroy it there if you do not need it.`,
          keptId: id,
          attempts: attempt,
        };
    }
  }
  return {
    outcome: 'failed',
    message: `${lastProblem ? `${lastProblem} ` : ''}No instance could be started after ${attempt} attempt(s). Try again later, or loosen the template's offer requirements.`,
    attempts: attempt,
    ...(failedLogs.length ? { logs: failedLogs } : {}),
  };
}

async function destroy(ports: CreateFlowPorts, id: number): Promise<boolean> {
  try {
    await ports.api.destroyInstance(id);
    ports.instances?.remove(id);
    await removeInflight(ports.state, id, true);
    ports.log.info(`create: destroyed instance ${id}`);
    return true;
  } catch (e) {
    ports.log.error(`create: destroying instance ${id} failed: ${logText(e)}`);
    return false;
  }
}

// ---- resume after a restart --------------------------------------------------------

export interface ResumeResult {
  instanceId: number;
  outcome: PollOutcome['kind'];
  alias?: string;
}

/**
 * Polls every persisted in-flight creation (in parallel) until it comes up, then writes its
 * SSH entry. Terminal failures are reported through onFailed, not destroyed silently: the
 * user is not watching, and the instance stays visible in the Instances view.
 */
export async function resumeInflight(
  ports: Pick<CreateFlowPorts, 'api' | 'log' | 'clock' | 'ssh' | 'state' | 'instances'>,
  opts: { intervalMs?: number; maxWaitMs?: number; signal?: AbortSignal; onFailed?(r: InflightCreation, message: string): void; only?: number[] },
): Promise<ResumeResult[]> {
  const records = readInflight(ports.state).filter((r) => opts.only === undefined || opts.only.includes(r.instanceId));
  return Promise.all(
    records.map(async (r): Promise<ResumeResult> => {
      ports.instances?.watch(r.instanceId);
      ports.log.info(`create: resuming instance ${r.instanceId} ("${r.label}")`);
      const out = await pollUntilReady(ports.api, r.instanceId, ports.clock, ports.log, {
        targetState: r.targetState,
        label: r.label,
        intervalMs: opts.intervalMs ?? 10_000,
        maxWaitMs: opts.maxWaitMs ?? 60 * 60_000,
        signal: opts.signal,
        onUpdate: (inst) => ports.instances?.upsert(inst),
      });
      const res: ResumeResult = { instanceId: r.instanceId, outcome: out.kind };
      if (out.kind === 'ready') {
        try {
          res.alias = await ports.ssh.writeEntry(out.instance, r.ssh);
        } catch (e) {
          ports.log.warn(`create: writing the SSH entry for ${r.instanceId} failed: ${logText(e)}`);
        }
        await removeInflight(ports.state, r.instanceId);
      } else if (out.kind === 'stopped') {
        await removeInflight(ports.state, r.instanceId);
      } else if (out.kind === 'gone') {
        await removeInflight(ports.state, r.instanceId, true);
      } else if (out.kind === 'terminal') {
        await removeInflight(ports.state, r.instanceId);
        const st = out.instance.actual_status ?? out.instance.state;
        const msg = `Instance ${r.instanceId} ("${r.label}") became "${st}" while starting and will not run. Destroy it from the Instances view so it stops billing for disk, then create it again.`;
        ports.log.warn(`create: ${msg}`);
        opts.onFailed?.(r, msg);
      }
      // aborted / timeout / error: the record stays, so the next start tries again.
      return res;
    }),
  );
}
