// "Create Instance from Template" as a plain-TypeScript state machine with injected ports,
// so it runs in unit tests against the simulator and in VS Code behind a progress notification.
// Its stages live in their own files: search and pick (searchAndPick.ts), rent (rentOnce.ts),
// visibility and polling (pollUntilReady.ts, deciding by src/api/visibility.ts), the in-flight
// records (inflight.ts), resume and adoption after a reload (resumeInflight.ts); the SSH entry
// and the outcome are settled here.
//
// Money rules this flow exists to keep (docs/guarantees.md):
// - one click never rents two machines: another offer is rented by itself only after an answer
//   that proves nothing was created (the table in src/api/rentAgain.ts). Any other create answer
//   is reconciled through the instance list before anything else, and a rental the list does not
//   show (never, or no longer: destroyed elsewhere, or a lagging list) is not replaced on its
//   own: the user is asked (interactive), or the flow answers 'unknown' and the rental stays
//   watched (scripted, confirm: false);
// - a read that says "not found" is never proof that a machine is gone (src/api/visibility.ts);
// - a rented instance is never left untracked: it is recorded in flight (globalState) before the
//   create request goes out, upserted into the store at once, read errors back off and keep
//   tracking, and a cancel or give-up hands it to the Instances view, named with its price; a
//   machine that appears late is adopted (row, SSH entry, notification);
// - a preselected offer is rented only when it satisfies the template's offer filters, or the
//   user said yes knowing why it does not (never when scripted with confirm: false);
// - an instance that fails while booting (exited/unknown/offline) is reported, never acted on
//   unasked (failedBoot.ts): its log is requested, then the user chooses to destroy it and rent
//   the next match, destroy it only, or keep it; a script keeps it (named in the result).
import { background } from '../core/background';
import type { CreateInstanceRequest, Offer } from '../api/types';
import type { SshOptions } from '../ssh/sshTypes';
import { buildCreateRequest, baseLabel, uniqueLabel } from './requestBuilder';
import { describeOffer } from './ranking';
import { GuardSetupError, guardedOnstart } from '../guard/plan';
import type { CreateFlowInput, CreateFlowPorts, CreateFlowResult, FailedInstanceLog, InflightCreation, Stage, UnknownFate } from './flowTypes';
import { logText, named, userMessageOf } from './flowTypes';
import { markLate, markSeen, putInflight, removeInflight } from './inflight';
import { pollUntilReady, type PollOutcome } from './pollUntilReady';
import { cancelledBeforeRent, searchAndPick } from './searchAndPick';
import { rentOnce, unknownName, unknownResult, unknownWhy, type RentContext } from './rentOnce';
import { destroyCreated, failedBoot, serverLine } from './failedBoot';

export * from './flowTypes';
export { INFLIGHT_STATE_KEY, readInflight, removeInflight } from './inflight';
export { MAX_READ_FAILURES, pollUntilReady, type PollOptions, type PollOutcome } from './pollUntilReady';
export { GONE_CONFIRMATIONS, NOT_VISIBLE_WINDOW_MS } from '../api/visibility';
export { PROVEN_REFUSALS, provenRefusal } from '../api/rentAgain';
export { resumeInflight, type ResumeResult } from './resumeInflight';

/** What one rented instance's wait came to: the flow's result, or try the next offer (at a price the user approved). */
type Settled = { result: CreateFlowResult } | { next: string; approvedPrice?: number };

interface Run {
  ports: CreateFlowPorts;
  input: CreateFlowInput;
  intervalMs: number;
  maxWaitMs: number;
  targetState: 'running' | 'stopped';
  ssh: SshOptions;
  attempt: number;
  failedLogs: FailedInstanceLog[];
  /** The match the loop would rent next (not taken from the list), or undefined when none or no attempt is left. */
  peekNext(): Offer | undefined;
  progress(stage: Stage, message: string): void;
}

export async function runCreateFlow(ports: CreateFlowPorts, input: CreateFlowInput): Promise<CreateFlowResult> {
  const { log, clock } = ports;
  // Elapsed time counts from the click on Rent: the search and the confirmation are not waiting.
  let startedAt = clock.now();
  const maxAttempts = Math.max(1, input.maxAttempts ?? 3);
  const signal = input.signal;
  const run: Run = {
    ports,
    input,
    intervalMs: input.pollIntervalMs ?? 10_000,
    maxWaitMs: input.maxWaitMs ?? 30 * 60_000,
    targetState: input.template.instance.target_state ?? 'running',
    ssh: { ...(input.template.ssh ?? {}), ...(input.sshAliases?.length ? { groupAliases: [...input.sshAliases] } : {}) },
    attempt: 0,
    failedLogs: [],
    peekNext: () => undefined,
    progress: (stage, message) => ports.progress({ stage, message, attempt: Math.max(run.attempt, 1), maxAttempts, elapsedMs: clock.now() - startedAt }),
  };

  const picked = await searchAndPick(ports, input, run.progress);
  if ('outcome' in picked) return picked;
  if (picked.confirmedAt !== undefined) startedAt = picked.confirmedAt;
  const { template: t, candidates, bidPrice } = picked;
  let confirmedPrice = picked.confirmedPrice;

  const createWaits = { n: 0 };
  const base = baseLabel(t);
  const triedMachines = new Set<number>();
  let lastProblem = '';
  let ci = 0;
  run.peekNext = () => (run.attempt < maxAttempts ? candidates.slice(ci).find((c) => c.machine_id == null || !triedMachines.has(c.machine_id)) : undefined);

  while (run.attempt < maxAttempts) {
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
    run.attempt++;
    if (offer.machine_id != null) triedMachines.add(offer.machine_id);

    // A group member's label is unique already (its group's name and rank): sent as it is, a reload finds it by that label.
    const label = input.exactLabel && run.attempt === 1 ? base : uniqueLabel(base, ports.random);
    let guarded: { onstart?: string; env?: Record<string, string> };
    try {
      // The offer's GPU count: a CPU-only machine (0) is judged without expecting nvidia-smi.
      guarded = guardedOnstart(input.onstart ?? t.instance.onstart, input.guard, { dphTotal: offer.dph_total, gpus: offer.num_gpus }, (m) =>
        log.warn(`create: ${m}`),
      );
    } catch (e) {
      if (!(e instanceof GuardSetupError)) throw e;
      log.warn(`create: ${e.message}`);
      return { outcome: 'failed', message: `Nothing was rented. ${e.message}`, attempts: run.attempt };
    }
    const req: CreateInstanceRequest = buildCreateRequest(t, label, guarded.onstart, guarded.env);
    run.progress('renting', `Renting ${describeOffer(offer)}${bidPrice !== undefined ? ` (bid $${bidPrice}/h)` : ''} (${run.attempt}/${maxAttempts})`);
    log.info(`create: renting offer ${offer.id} as "${label}" (attempt ${run.attempt}/${maxAttempts})`);
    const rc: RentContext = {
      ports,
      input,
      intervalMs: run.intervalMs,
      attempt: run.attempt,
      bidPrice,
      createWaits,
      record: { templatePath: input.templatePath, ssh: run.ssh, targetState: run.targetState, startedAt: Date.now() },
      progress: (m) => run.progress('renting', m),
    };
    const step = await rentOnce(rc, offer, label, req);
    if (step.kind === 'result') return step.result;
    if (step.kind === 'offer-gone') {
      lastProblem = step.problem;
      run.progress('renting', `${lastProblem} Trying the next match…`);
      continue;
    }
    if (step.kind === 'again' || step.kind === 'rent-again') {
      // 'again': not an attempt (the service did not look at it); 'rent-again': the same offer, as the user chose.
      if (step.kind === 'again') run.attempt--;
      else lastProblem = step.problem;
      ci--;
      if (offer.machine_id != null) triedMachines.delete(offer.machine_id);
      continue;
    }
    const settled = await trackAndSettle(run, { ...rc.record, instanceId: step.id, label }, offer);
    if ('result' in settled) return settled.result;
    lastProblem = settled.next;
    // The user chose the next match knowing its price: that is the confirmation of that price.
    if (settled.approvedPrice !== undefined) confirmedPrice = Math.max(confirmedPrice, settled.approvedPrice);
  }
  return {
    outcome: 'failed',
    message: `${lastProblem ? `${lastProblem} ` : ''}No instance could be started after ${run.attempt} attempt(s). Try again later, or loosen the template's offer requirements.`,
    attempts: run.attempt,
    ...(run.failedLogs.length ? { logs: run.failedLogs } : {}),
  };
}

/** A rented instance: recorded, shown in the store at once, polled until it settles. */
async function trackAndSettle(run: Run, record: InflightCreation & { instanceId: number }, offer: Offer): Promise<Settled> {
  const { ports } = run;
  const id = record.instanceId;
  await putInflight(ports.state, record);
  ports.instances?.upsert({
    id,
    actual_status: null,
    state: 'provisioning',
    label: record.label,
    intended_status: run.targetState,
    gpu_name: offer.gpu_name,
    num_gpus: offer.num_gpus,
    dph_total: offer.dph_total,
  });
  ports.instances?.watch(id);
  run.progress('provisioning', `Instance ${id} rented; provisioning…`);
  const seen: { at?: number } = {};
  for (;;) {
    const outcome = await poll(run, id, record.label, seen);
    if (outcome.kind !== 'not-found' && outcome.kind !== 'gone') return settle(run, outcome, id, offer, record.label);
    // The list does not show it (never, or no longer): its fate is unknown. Never a second rental unasked.
    const fate: UnknownFate = { instanceId: id, dphTotal: offer.dph_total, ...(seen.at !== undefined ? { lastSeenAgoMs: ports.clock.now() - seen.at } : {}) };
    const answer =
      run.input.confirm === false ? 'stop' : ((await ports.prompts.notFound?.({ ...fate, label: record.label, waitedMs: outcome.proof.sinceMs })) ?? 'stop');
    if (answer === 'wait') continue;
    await markLate(ports.state, { instanceId: id, label: record.label });
    ports.log.warn(
      `create: instance ${id} ${outcome.kind === 'gone' ? 'was shown before and the list no longer shows it (destroyed elsewhere, or a lagging list)' : 'has not been shown by the list'}; nothing else is rented unasked, and it stays watched`,
    );
    if (answer === 'stop') return { result: unknownResult(record.label, run.attempt, fate) };
    ports.log.info(`create: renting again as asked; instance ${id} stays watched and is adopted if it appears`);
    return { next: `${unknownName(record.label, fate)} ${unknownWhy(fate)}.` };
  }
}

function poll(run: Run, id: number, label: string, seen: { at?: number }): Promise<PollOutcome> {
  const progress = run.progress;
  return pollUntilReady(run.ports.api, id, run.ports.clock, run.ports.log, {
    targetState: run.targetState,
    label,
    intervalMs: run.intervalMs,
    maxWaitMs: run.maxWaitMs,
    signal: run.input.signal,
    seenBefore: seen.at !== undefined,
    onUpdate: (inst) => {
      seen.at = run.ports.clock.now();
      run.ports.instances?.upsert(inst);
      background(markSeen(run.ports.state, id), run.ports.log, 'remembering that the instance was seen');
      if (inst.state === 'loading')
        progress('loading', `Instance ${id}: loading image…${inst.status_msg ? ` ${serverLine(inst.status_msg, run.input.secrets) ?? ''}` : ''}`);
      else if (inst.state === 'provisioning') progress('provisioning', `Instance ${id}: provisioning…`);
      else if (inst.state === 'running') progress('running', `Instance ${id} is running; waiting for SSH details…`);
    },
  });
}

async function settle(run: Run, outcome: Exclude<PollOutcome, { kind: 'not-found' | 'gone' }>, id: number, offer: Offer, label: string): Promise<Settled> {
  const { ports } = run;
  const { log } = ports;
  const attempts = run.attempt;
  switch (outcome.kind) {
    case 'stopped':
      await removeInflight(ports.state, id);
      return { result: { outcome: 'stopped', instance: outcome.instance, attempts } };
    case 'ready': {
      const inst = outcome.instance;
      run.progress('writing-ssh', `Instance ${id} is running; writing the SSH entry…`);
      let alias: string | undefined;
      let sshError: string | undefined;
      try {
        alias = await ports.ssh.writeEntry(inst, run.ssh);
      } catch (e) {
        log.warn(`create: writing the SSH entry for ${id} failed: ${logText(e)}`);
        sshError = `The instance is running, but its SSH entry could not be written (${e instanceof Error ? e.message : 'unknown error'}). Use "Copy SSH Command" instead, or fix the problem and reconnect.`;
      }
      await removeInflight(ports.state, id);
      run.progress('done', `Instance ${id} is running${alias ? ` as ${alias}` : ''}.`);
      return { result: { outcome: 'running', instance: inst, attempts, ...(alias ? { alias } : {}), ...(sshError ? { sshError } : {}) } };
    }
    case 'terminal':
      return failedBoot(
        {
          ports,
          confirm: run.input.confirm !== false,
          signal: run.input.signal,
          secrets: run.input.secrets ?? [],
          attempts,
          failedLogs: run.failedLogs,
          progress: (m) => run.progress('provisioning', m),
        },
        outcome.instance,
        offer,
        label,
        run.peekNext(),
      );
    case 'aborted':
    case 'timeout':
      return { result: await keepOrDestroy(run, outcome.kind === 'aborted' ? 'cancelled' : 'timeout', id, offer) };
    case 'error':
      log.warn(`create: reading instance ${id} kept failing (${logText(outcome.error)}); handing it to the Instances view`);
      return {
        result: {
          outcome: 'kept',
          message: `${named(id, offer)} is rented and billing, but its status could not be read for a while (${userMessageOf(outcome.error)}). It stays in the Instances view, which keeps checking it; its SSH entry is written when it runs. Destroy it there if you do not need it.`,
          keptId: id,
          attempts,
        },
      };
  }
}

async function keepOrDestroy(run: Run, reason: 'cancelled' | 'timeout', id: number, offer: Offer): Promise<CreateFlowResult> {
  const answer = await run.ports.prompts.keepOrDestroy(id, reason);
  if (answer === 'destroy') {
    if (await destroyCreated(run.ports, id))
      return { outcome: 'cancelled', destroyedId: id, message: `Instance ${id} was destroyed; billing for it has stopped.` };
    return {
      outcome: 'failed',
      message: `Instance ${id} could not be destroyed and is still billing. Destroy it from the Instances view.`,
      keptId: id,
      attempts: run.attempt,
    };
  }
  run.ports.log.info(`create: keeping instance ${id} (${reason}); it stays tracked and its SSH entry is written when it comes up`);
  return {
    outcome: 'cancelled',
    keptId: id,
    message: `${named(id, offer)} is kept and still billing. It is in the Instances view; its SSH entry is written when it is running.`,
  };
}
