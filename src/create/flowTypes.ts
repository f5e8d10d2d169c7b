// The create flow's types and ports (src/create/createFlow.ts): what it asks, reports and returns.
import type { Instance, Logger, Offer, ServiceApi } from '../api/types';
import type { InstanceStore, KeyValueStore } from '../core/ports';
import type { SshEntryWriter, SshOptions } from '../ssh/sshTypes';
import type { Template } from './templateSchema';
import type { GuardRequest } from '../guard/plan';
import { apiErrorOf } from '../core/describeError';
import { formatRate } from '../core/rates';

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

/** The answer when a rental's fate is unknown (the list does not show it): never a second rental unasked. */
export type NotFoundAnswer = 'wait' | 'rent-again' | 'stop';

/** What is known of a rental whose fate is unknown: shown to the user with the question and the result. */
export interface UnknownFate {
  instanceId?: number;
  /** The offer's price: what it costs if it exists. */
  dphTotal?: number;
  /** How long ago a read last showed it (absent: no read ever did). */
  lastSeenAgoMs?: number;
  /** The service's answer to the create, when it was a refusal that proves nothing (src/api/rentAgain.ts). */
  answer?: string;
}

/** The user's answer when a rented instance failed while starting: nothing is destroyed or rented without one. */
export type FailedBootAnswer = 'destroy-and-rent-next' | 'destroy' | 'keep';

/** What is known of an instance that failed while starting, shown with the question (service texts made plain, secrets masked). */
export interface FailedBootInfo {
  instanceId: number;
  label: string;
  /** exited, unknown or offline. */
  status: string;
  /** The service's status message, one plain line. */
  statusMsg?: string;
  /** What it costs while kept, e.g. "$0.012/h". */
  keptCost: string;
  /** The match that would be rented instead (absent: none left, or no attempt left). */
  next?: Offer;
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
  /**
   * A rental's fate is unknown: the instance list does not show it (by id or label) after the
   * "not visible yet" minute and two reads, whether a read showed it before (`lastSeenAgoMs`:
   * destroyed elsewhere, or a lagging list) or never, or the create was answered by a refusal
   * that proves nothing. Wait longer, rent again (the first stays watched and is adopted if it
   * appears), or stop (it stays watched). Absent: 'stop'. Never asked with confirm: false.
   */
  notFound?(what: UnknownFate & { label: string; waitedMs: number }): Promise<NotFoundAnswer>;
  /**
   * A rented instance failed while starting (exited/unknown/offline): destroy it and rent the
   * next match, destroy it only, or keep it. Absent: 'keep'. Never asked with confirm: false.
   */
  failedBoot?(what: FailedBootInfo): Promise<FailedBootAnswer>;
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

/**
 * A rental this extension sent and has not yet seen settle (survives reloads and restarts). It
 * is written before the create request goes out, so a lost answer leaves its label to look for.
 */
export interface InflightCreation {
  /** Absent while the create's answer is unknown (lost, unreadable): the label finds it. */
  instanceId?: number;
  label: string;
  templatePath: string;
  ssh: SshOptions;
  targetState: 'running' | 'stopped';
  startedAt: number;
  /** The flow stopped waiting for it (not found in time): when it appears it is adopted and announced as late. */
  late?: boolean;
  /** A read has shown it: its absence from two list reads then proves it is gone. */
  seen?: boolean;
}

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
  /** false skips the price confirmation (scripts and tests), and never rents a second machine or destroys one unasked. */
  confirm?: boolean;
  /** The template's expanded secret values (LoadedTemplate.secrets): masked in every error and log line. */
  secrets?: readonly string[];
  /** More SSH host names for the instance's entry (a group member's, src/groups/). */
  sshAliases?: string[];
  /** The template's label is unique already (a group member's): the first attempt sends it as it is, without a suffix. */
  exactLabel?: boolean;
  /** Rent attempts in total (offer taken, failed boot the user chose to replace). Default 3. */
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
  /**
   * A rental was sent and the list has not shown it: its fate is unknown. It stays in the
   * in-flight records and is watched; if it appears it is adopted (row, SSH entry, notification).
   * `instanceId` is absent when the create's answer was lost (the label finds it).
   */
  | { outcome: 'unknown'; instanceId?: number; label: string; message: string; attempts: number }
  /**
   * Nothing runs. `keptId`: an instance of this click is kept (it could not be destroyed, or it
   * failed while starting and the user, or a script, kept it): it is in the Instances view.
   * `bootFailed`: the instance that failed while starting (kept, or `destroyedId` as the user chose).
   */
  | {
      outcome: 'failed';
      message: string;
      keptId?: number;
      destroyedId?: number;
      bootFailed?: { instanceId: number; status: string; statusMsg?: string };
      attempts: number;
      logs?: FailedInstanceLog[];
    };

/** The log of an instance that failed while starting, requested before anything was decided (its upload outlives the instance). */
export interface FailedInstanceLog {
  instanceId: number;
  status: string;
  resultUrl: string;
}

export function userMessageOf(e: unknown): string {
  const api = apiErrorOf(e);
  if (api) return api.userMessage();
  return 'An unexpected error happened. Open the GPU Rental log for details and try again.';
}

export function logText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : 'non-error thrown';
}

/** "Instance 123 (2× RTX 4090, $0.80/h)": how a rented instance is named to the user. */
export function named(id: number, offer: Offer): string {
  return `Instance ${id} (${offer.num_gpus}× ${offer.gpu_name}, ${formatRate(offer.dph_total, offer.dph_total < 1 ? 3 : 2)})`;
}
