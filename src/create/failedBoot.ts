// An instance that fails while starting (exited/unknown/offline): reported, never acted on
// unasked. Its log is requested (the upload outlives the instance), then the user decides in one
// question: destroy it and rent the next match, destroy it only, or keep it. A script
// (confirm: false), or a host without the question, keeps it: it stays in the Instances view,
// watched, and the result names it; nothing else is rented or destroyed.
import type { Instance, Offer } from '../api/types';
import { redact } from '../api/redact';
import { currentRate, formatRate } from '../core/rates';
import type { CreateFlowPorts, CreateFlowResult, FailedBootAnswer, FailedInstanceLog } from './flowTypes';
import { logText, named } from './flowTypes';
import { removeInflight } from './inflight';
import * as l10n from '@vscode/l10n';

/** What the failed-boot question needs to know of the run. */
export interface FailedBootRun {
  ports: CreateFlowPorts;
  confirm: boolean;
  signal?: AbortSignal;
  secrets: readonly string[];
  attempts: number;
  failedLogs: FailedInstanceLog[];
  progress(message: string): void;
}

/** The failed boot's verdict: the flow's result, or destroyed as asked and the next match is to be rented (its price approved). */
export type FailedBootStep = { result: CreateFlowResult } | { next: string; approvedPrice: number };

/** Characters that would reorder, hide or break the line a service-controlled text is shown on. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+/g;

/** Service- or host-controlled text as one plain line: no control or direction characters, secrets masked, bounded. */
export function serverLine(text: string | null | undefined, secrets: readonly string[] = []): string | undefined {
  if (typeof text !== 'string') return undefined;
  const line = redact(text.replace(UNSAFE, ' '), secrets).replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** "$0.300/h", or what is known when the service did not say. */
export function keptCost(inst: Instance, offer: Offer): string {
  const rate = currentRate(inst);
  if (rate > 0) return formatRate(rate, rate < 1 ? 3 : 2);
  return l10n.t('its disk storage (up to {0} while it holds the GPU)', formatRate(offer.dph_total, offer.dph_total < 1 ? 3 : 2));
}

/**
 * Asks for the failed instance's log, then asks the user (interactive) what to do with it. `next`
 * is the match that would be rented instead (absent: none left, or no attempts left).
 */
export async function failedBoot(run: FailedBootRun, inst: Instance, offer: Offer, label: string, next: Offer | undefined): Promise<FailedBootStep> {
  const { ports } = run;
  const { log, api } = ports;
  const id = inst.id;
  const status = serverLine(inst.actual_status ?? inst.state, run.secrets) ?? 'unknown';
  const statusMsg = serverLine(inst.status_msg, run.secrets);
  const problem = l10n.t('Instance {0} on offer {1} became "{2}" while starting{3}.', id, offer.id, status, statusMsg ? ` (${statusMsg})` : '');
  // The log is asked for first: the upload outlives the instance, so "why did it fail?" stays answerable.
  try {
    const { result_url } = await api.requestLogs(id, { tail: 1000 }, run.signal ? { signal: run.signal } : undefined);
    run.failedLogs.push({ instanceId: id, status, resultUrl: result_url });
  } catch (e) {
    log.debug(`create: requesting the log of failed instance ${id} failed: ${logText(e)}`);
  }
  const cost = keptCost(inst, offer);
  const ask = run.confirm && !run.signal?.aborted ? ports.prompts.failedBoot : undefined;
  log.warn(`create: ${problem} ${ask ? 'Asking what to do with it' : 'Keeping it (nobody to ask): nothing is destroyed or rented'}.`);
  run.progress(`${problem} ${ask ? l10n.t('Waiting for your decision…') : l10n.t('It is kept.')}`);
  const answer: FailedBootAnswer = ask
    ? ((await ask({ instanceId: id, label, status, ...(statusMsg ? { statusMsg } : {}), keptCost: cost, ...(next ? { next } : {}) })) ?? 'keep')
    : 'keep';
  const logs = run.failedLogs.length ? { logs: [...run.failedLogs] } : {};
  if (answer === 'keep' || (answer === 'destroy-and-rent-next' && !next)) {
    // Settled by the user (or for a script): it stays in the Instances view, which watches it.
    await removeInflight(ports.state, id);
    log.info(`create: keeping failed instance ${id} as ${ask ? 'asked' : 'nobody was asked'}; nothing else is rented`);
    return {
      result: {
        outcome: 'failed',
        message: l10n.t(
          '{0} {1} is kept and still billing {2}; it is in the Instances view, which keeps watching it. Nothing else was rented. Its log says why it failed (Show Instance Logs). Destroy it there when you no longer need it.',
          problem,
          named(id, offer),
          cost,
        ),
        keptId: id,
        bootFailed: { instanceId: id, status, ...(statusMsg ? { statusMsg } : {}) },
        attempts: run.attempts,
        ...logs,
      },
    };
  }
  run.progress(l10n.t('{0} Destroying it as you chose…', problem));
  if (!(await destroyCreated(ports, id))) {
    return {
      result: {
        outcome: 'failed',
        message: l10n.t('{0} It could not be destroyed and is still billing {1}. Nothing else was rented. Destroy it from the Instances view.', problem, cost),
        keptId: id,
        bootFailed: { instanceId: id, status, ...(statusMsg ? { statusMsg } : {}) },
        attempts: run.attempts,
        ...logs,
      },
    };
  }
  if (answer === 'destroy-and-rent-next' && next) {
    log.info(`create: renting the next match (offer ${next.id}) as asked`);
    return { next: problem, approvedPrice: next.dph_total };
  }
  return {
    result: {
      outcome: 'failed',
      message: l10n.t('{0} It was destroyed as you chose; billing for it has stopped. Nothing else was rented.', problem),
      destroyedId: id,
      bootFailed: { instanceId: id, status, ...(statusMsg ? { statusMsg } : {}) },
      attempts: run.attempts,
      ...logs,
    },
  };
}

/** Destroys an instance this click created, after the user's yes; false (logged) when the service did not. */
export async function destroyCreated(ports: Pick<CreateFlowPorts, 'api' | 'instances' | 'state' | 'log'>, id: number): Promise<boolean> {
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
