// Waiting for a rental to become visible and ready, and finding the instance an ambiguous create
// made. What each read proves is decided by src/api/visibility.ts; this file does the reads and
// the waiting (backing off on failed reads, paced by the service's thresholds).
import type { Instance, Logger, ServiceApi } from '../api/types';
import { VisibilityWatch, GONE_CONFIRMATIONS, NOT_VISIBLE_WINDOW_MS, saysNotFound, type AbsenceProof } from '../api/visibility';
import { SERVICE_THRESHOLDS_MS, statusPollDelay } from '../api/pacing';
import { locateCreation, reconcileCreation } from '../api/reconcile';
import { errorKind, errorStatus } from '../core/describeError';
import type { Clock, CreateFlowPorts } from './flowTypes';
import { logText } from './flowTypes';
import * as l10n from '@vscode/l10n';

const TERMINAL = new Set(['exited', 'unknown', 'offline']);
const MAX_BACKOFF_MS = 120_000;
/** Consecutive failed status reads after which the flow hands the instance over (backoff capped at 2 min). */
export const MAX_READ_FAILURES = 30;

export type PollOutcome =
  | { kind: 'ready'; instance: Instance }
  | { kind: 'stopped'; instance: Instance }
  | { kind: 'terminal'; instance: Instance }
  /** Shown before, then left out of the list (by id and label) GONE_CONFIRMATIONS times: destroyed elsewhere, or a lagging list; its fate is unknown. */
  | { kind: 'gone'; proof: AbsenceProof }
  /** Never shown by any read, and the list has not shown it after the minute and two reads: fate unknown. */
  | { kind: 'not-found'; proof: AbsenceProof }
  | { kind: 'aborted' }
  | { kind: 'timeout' }
  | { kind: 'error'; error: unknown };

export interface PollOptions {
  targetState: 'running' | 'stopped';
  /** The label the creation request carried: the list is searched by it as well as by id. */
  label?: string;
  /** The slowest pace of the reads (the poll interval setting): they start at the service's show threshold (statusPollDelay). */
  intervalMs: number;
  maxWaitMs: number;
  signal?: AbortSignal;
  onUpdate?(instance: Instance): void;
  /** A read already showed this instance (a resumed poll of a rental seen before). */
  seenBefore?: boolean;
  /** Keep watching a rental the list does not show, never or no longer (the adoption watcher): only the wait limit ends it. */
  untilTimeout?: boolean;
}

/** Doubles the wait after a failed read, never below the endpoint's threshold, capped. */
export function backoff(delay: number, threshold: number): number {
  return Math.min(Math.max(delay * 2, threshold), MAX_BACKOFF_MS);
}

/** What the instance's state means for the wait, or undefined to keep waiting. */
function settled(inst: Instance, target: 'running' | 'stopped'): PollOutcome | undefined {
  if (target === 'stopped' && inst.state === 'stopped') return { kind: 'stopped', instance: inst };
  if (inst.state === 'running' && inst.ssh_host && inst.ssh_port) return { kind: 'ready', instance: inst };
  // exited/unknown/offline while intended running: the instance never reaches running.
  if (TERMINAL.has(inst.state) && (inst.intended_status ?? 'running') !== 'stopped') return { kind: 'terminal', instance: inst };
  if (inst.state === 'stopped' && target === 'running') return { kind: 'stopped', instance: inst };
  return undefined;
}

/**
 * Polls show-instance until the instance is ready (running with ssh_host/ssh_port), or a
 * terminal state, at the service's show threshold while the record keeps changing and slower
 * (up to `intervalMs`) while it does not (statusPollDelay in src/api/pacing.ts). A read error never ends the tracking early: 429, 5xx, timeouts, unreadable
 * answers back off (doubling, capped) and try again, up to MAX_READ_FAILURES in a row ('error',
 * the caller hands the instance over). "Not found" is judged by VisibilityWatch: within the
 * first minute it is "not visible yet"; after that only the instance list, by id and by label,
 * asked GONE_CONFIRMATIONS times, settles anything ('gone' if a read ever showed it, else
 * 'not-found': either way its fate is unknown, and the caller never rents again on it alone).
 */
export async function pollUntilReady(api: ServiceApi, id: number, clock: Clock, log: Logger, o: PollOptions): Promise<PollOutcome> {
  const start = clock.now();
  const watch = new VisibilityWatch(start, { seenBefore: o.seenBefore === true });
  let delay = statusPollDelay({ sinceChangeMs: 0, lastDelayMs: 0, slowestMs: o.intervalMs });
  let failures = 0;
  // When the record last changed (state, status text, SSH address): the reads slow down only while it stays the same.
  let changedAt = start;
  let lastSeen = '';
  for (;;) {
    if (o.signal?.aborted) return { kind: 'aborted' };
    let inst: Instance | undefined;
    try {
      inst = await api.showInstance(id, o.signal ? { signal: o.signal } : undefined);
      watch.shown(inst);
      const seen = JSON.stringify([inst.state, inst.status_msg, inst.ssh_host, inst.ssh_port]);
      if (seen !== lastSeen) [lastSeen, changedAt] = [seen, clock.now()];
      delay = statusPollDelay({ sinceChangeMs: clock.now() - changedAt, lastDelayMs: delay, slowestMs: o.intervalMs });
      failures = 0;
    } catch (e) {
      if (o.signal?.aborted || errorKind(e) === 'aborted') return { kind: 'aborted' };
      if (saysNotFound(e)) {
        failures = 0;
        // Not shown (yet): nothing to be ready sooner for; the show threshold pace starts with the first sighting.
        delay = Math.max(delay, o.intervalMs);
        const v = watch.notFound(clock.now());
        if (v.state === 'not-visible-yet') log.debug(`create: instance ${id} is not visible yet; asking again`);
        else {
          const listed = await listShows(api, id, o.label, log, o.signal);
          const verdict = listed === 'unknown' ? watch.unreadable() : watch.listRead(clock.now(), listed);
          if (verdict.state === 'visible') {
            if (verdict.instance.id === id) inst = verdict.instance;
            log.debug(`create: show-instance says ${id} does not exist, but the instance list shows it; still tracking`);
          } else if (verdict.state === 'gone' || verdict.state === 'not-found') {
            const what = l10n.t(
              'the instance list shows neither instance {0} nor the label "{1}" ({2} reads in a row, {3} s after renting)',
              id,
              o.label ?? '(none)',
              verdict.proof.listReads,
              Math.round(verdict.proof.sinceMs / 1000),
            );
            if (!o.untilTimeout) {
              if (verdict.state === 'gone') {
                log.warn(`create: ${what}, after showing it before: destroyed elsewhere, or the list lags`);
                return { kind: 'gone', proof: verdict.proof };
              }
              log.warn(`create: ${what}, and no read ever showed it: it may still appear`);
              return { kind: 'not-found', proof: verdict.proof };
            }
            // Still watched, but no faster than needed: the wait doubles up to the cap while it stays unseen.
            delay = backoff(delay, o.intervalMs);
            log.debug(`create: ${what}; still watching for it (next look in ${Math.round(delay / 1000)} s)`);
          } else if (verdict.state === 'unconfirmed') {
            log.info(`create: the instance list shows neither instance ${id} nor the label "${o.label ?? '(none)'}"; asking again before concluding anything`);
          }
        }
      } else {
        failures++;
        delay = backoff(delay, errorKind(e) === 'rate_limited' ? SERVICE_THRESHOLDS_MS.show : o.intervalMs);
        log.debug(
          `create: reading instance ${id} failed (${errorKind(e) ?? 'error'}${errorStatus(e) ? ` ${errorStatus(e)}` : ''}); next try in ${Math.round(delay / 1000)} s`,
        );
        if (failures >= MAX_READ_FAILURES) return { kind: 'error', error: e };
      }
    }
    if (inst) {
      o.onUpdate?.(inst);
      const out = settled(inst, o.targetState);
      if (out) return out;
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

export type Reconciled = { found: Instance } | { absent: true; reads: number; waitedMs: number } | { unknown: true; error: unknown } | { aborted: true };

/**
 * After an ambiguous create (or to find an id-less rental again): asks the list for the
 * request's label until it shows it, or it has not shown it in GONE_CONFIRMATIONS reads spanning
 * the "not visible yet" minute (its fate is then unknown: 'absent' is no proof that nothing was
 * rented). Failed reads back off and ask again. Without a signal it is not cancellable: what
 * happened must be known before anything else.
 */
export async function reconcileAmbiguous(
  ports: Pick<CreateFlowPorts, 'api' | 'clock' | 'log' | 'reconcile'>,
  label: string,
  intervalMs: number,
  o: { maxWaitMs?: number; signal?: AbortSignal } = {},
): Promise<Reconciled> {
  const { api, clock, log } = ports;
  const start = clock.now();
  const watch = new VisibilityWatch(start);
  let failures = 0;
  let reads = 0;
  let delay = Math.max(intervalMs, SERVICE_THRESHOLDS_MS.list);
  for (;;) {
    if (o.signal?.aborted) return { aborted: true };
    try {
      const found = await (ports.reconcile ?? reconcileCreation)(api, label);
      const v = watch.listRead(clock.now(), found);
      if (v.state === 'visible') return { found: v.instance };
      reads++;
      failures = 0;
      delay = Math.max(intervalMs, SERVICE_THRESHOLDS_MS.list);
      if ((v.state === 'not-found' || v.state === 'gone') && o.maxWaitMs === undefined) return { absent: true, reads, waitedMs: clock.now() - start };
      log.info(`create: the instance list does not show "${label}" yet (read ${reads}); asking again in ${Math.round(delay / 1000)} s`);
    } catch (e) {
      failures++;
      log.warn(`create: could not read the instance list to look for "${label}" (${logText(e)})`);
      if (o.maxWaitMs === undefined && failures >= MAX_READ_FAILURES / 3) return { unknown: true, error: e };
      delay = backoff(delay, SERVICE_THRESHOLDS_MS.list);
    }
    if (o.maxWaitMs !== undefined && clock.now() - start >= o.maxWaitMs) return { absent: true, reads, waitedMs: clock.now() - start };
    await clock.sleep(delay, o.signal);
  }
}

export { GONE_CONFIRMATIONS, NOT_VISIBLE_WINDOW_MS };
