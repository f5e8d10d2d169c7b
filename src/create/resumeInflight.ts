// Resume and adoption: every persisted in-flight rental is watched (after a reload, a restart, or
// when the flow stopped waiting for it) until the list shows it settle. A rental the flow gave up
// waiting for ('late') that then appears is adopted: its row, its SSH entry, and a notification.
import { background } from '../core/background';
import type { Instance } from '../api/types';
import type { CreateFlowPorts, InflightCreation } from './flowTypes';
import { logText } from './flowTypes';
import { forgetInflight, markSeen, putInflight, readInflight, removeInflight } from './inflight';
import { pollUntilReady, reconcileAmbiguous, type PollOutcome } from './pollUntilReady';

/**
 * A rental the list has not shown for this long after it was sent is let go (logged): the
 * service's late visibility is minutes, not a day.
 */
export const INFLIGHT_HORIZON_MS = 24 * 60 * 60_000;

export interface ResumeResult {
  instanceId?: number;
  label: string;
  outcome: PollOutcome['kind'];
  alias?: string;
  /** What the last read showed, once it settled (ready or stopped). */
  instance?: Instance;
  /** It was announced as late: the flow had stopped waiting for it. */
  adopted?: boolean;
}

export interface ResumeOptions {
  intervalMs?: number;
  maxWaitMs?: number;
  signal?: AbortSignal;
  onFailed?(r: InflightCreation, message: string): void;
  /** A rental the flow had stopped waiting for appeared and was adopted (row, SSH entry). */
  onAdopted?(r: InflightCreation, instance: Instance, alias: string | undefined): void;
  /** Only these rentals (by id, or by label for one whose id is unknown). */
  only?: ReadonlyArray<number | string>;
}

type ResumePorts = Pick<CreateFlowPorts, 'api' | 'log' | 'clock' | 'ssh' | 'state' | 'instances' | 'reconcile'>;

/**
 * Watches every persisted in-flight rental (in parallel) until it comes up, then writes its SSH
 * entry. Terminal failures are reported through onFailed, not destroyed silently: the user is not
 * watching, and the instance stays visible in the Instances view.
 */
export async function resumeInflight(ports: ResumePorts, opts: ResumeOptions): Promise<ResumeResult[]> {
  const wanted = (r: InflightCreation) => opts.only === undefined || opts.only.includes(r.instanceId ?? r.label) || opts.only.includes(r.label);
  return Promise.all(
    readInflight(ports.state)
      .filter(wanted)
      .map((r) => resumeOne(ports, opts, r)),
  );
}

async function resumeOne(ports: ResumePorts, opts: ResumeOptions, r: InflightCreation): Promise<ResumeResult> {
  const intervalMs = opts.intervalMs ?? 10_000;
  const maxWaitMs = opts.maxWaitMs ?? 60 * 60_000;
  let record = r;
  if (record.instanceId === undefined) {
    // The create's answer was lost: only the label can find it.
    ports.log.info(`create: looking for the rental labelled "${r.label}" (its create had no readable answer)`);
    const rec = await reconcileAmbiguous(ports, r.label, intervalMs, { maxWaitMs, ...(opts.signal ? { signal: opts.signal } : {}) });
    if (!('found' in rec)) return expire(ports, record, { instanceId: undefined, label: r.label, outcome: 'aborted' in rec ? 'aborted' : 'timeout' });
    record = { ...record, instanceId: rec.found.id };
    await putInflight(ports.state, record);
    ports.instances?.upsert(rec.found);
  }
  const id = record.instanceId!;
  ports.instances?.watch(id);
  ports.log.info(`create: watching instance ${id} ("${r.label}")${r.late ? ', which the flow had stopped waiting for' : ''}`);
  const out = await pollUntilReady(ports.api, id, ports.clock, ports.log, {
    targetState: r.targetState,
    label: r.label,
    intervalMs,
    maxWaitMs,
    signal: opts.signal,
    untilTimeout: true,
    seenBefore: r.seen === true,
    onUpdate: (inst) => {
      ports.instances?.upsert(inst);
      background(markSeen(ports.state, id), ports.log, 'remembering that the instance was seen');
    },
  });
  const res: ResumeResult = { instanceId: id, label: r.label, outcome: out.kind };
  if (out.kind === 'ready' || out.kind === 'stopped') {
    res.instance = out.instance;
    if (out.kind === 'ready') {
      try {
        res.alias = await ports.ssh.writeEntry(out.instance, r.ssh);
      } catch (e) {
        ports.log.warn(`create: writing the SSH entry for ${id} failed: ${logText(e)}`);
      }
    }
    await removeInflight(ports.state, id);
    if (r.late) {
      res.adopted = true;
      ports.log.warn(`create: instance ${id} ("${r.label}") arrived late and was adopted${res.alias ? ` (ssh ${res.alias})` : ''}`);
      opts.onAdopted?.(record, out.instance, res.alias);
    }
  } else if (out.kind === 'terminal') {
    await removeInflight(ports.state, id);
    const st = out.instance.actual_status ?? out.instance.state;
    const msg = `Instance ${id} ("${r.label}") became "${st}" while starting and will not run. Destroy it from the Instances view so it stops billing for disk, then create it again.`;
    ports.log.warn(`create: ${msg}`);
    opts.onFailed?.(record, msg);
  } else return expire(ports, record, res);
  return res;
}

/** aborted / timeout / error: the record stays for the next start, unless it is past the horizon. */
async function expire(ports: ResumePorts, r: InflightCreation, res: ResumeResult): Promise<ResumeResult> {
  if (res.outcome === 'aborted' || Date.now() - r.startedAt < INFLIGHT_HORIZON_MS) return res;
  await forgetInflight(ports.state, r.label);
  ports.log.warn(
    `create: the rental "${r.label}"${r.instanceId !== undefined ? ` (instance ${r.instanceId})` : ''} has not appeared in a day; no longer watching it`,
  );
  return res;
}
