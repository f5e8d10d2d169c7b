// The shapes the guard monitor (monitor.ts) speaks in: what it tells (a warning, a withdrawal, an
// act), what a row shows of a guard, and what it is built with. Kept apart so monitor.ts stays the
// logic. No `vscode`.
import type { Instance, Logger } from '../api/types';
import type { Event } from '../core/events';
import type { KeyValueStore } from '../core/ports';
import type { GuardDefaults } from './installed';
import type { GuardRemote } from './remote';
import type { Reading } from './statusText';

export interface GuardWarning {
  instance: Instance;
  /** When the guard will act (ms, local clock), or for instances without a watchdog when it has been idle idleMinutes. */
  actAt: number;
  /** What will happen: the watchdog's action, or nothing (no watchdog: a warning only). */
  action: 'stop' | 'destroy' | 'none';
  reason: 'idle' | 'maxHours' | 'maxSpend';
  /** The idle limit (a fraction below a minute: a test's or a demo's guard). */
  idleMinutes: number;
  /** Idle since (ms, local clock), for an idle warning: the row and the warning count the same minutes from it. */
  idleSince?: number;
  /** Which planned act this is (one idle stretch, one cap): a new one gets a new warning. */
  key: string;
}

/** A warning that no longer holds: the guard no longer plans that act. */
export interface GuardWithdrawal {
  instanceId: number;
  key: string;
  why: 'busy' | 'snoozed' | 'acted' | 'gone';
}

/** The guard stopped or destroyed an instance (told once per act). */
export interface GuardActed {
  /** The record as last seen running (its rate is what the act saves). */
  before: Instance;
  /** The record now (stopped), or undefined when it left the list (destroyed). */
  after?: Instance;
  action: 'stop' | 'destroy';
  reason: 'idle' | 'maxHours' | 'maxSpend';
  /** When it acted (ms, local clock). */
  at: number;
  idleLimitSeconds: number;
}

export interface GuardStatus {
  /** For the row, e.g. "guard: stops after 30 idle min · idle 12 min". */
  text: string;
  /** Tooltip lines (plain text). */
  details: string[];
  /** The last lines of the instance's guard.log, when read over SSH. */
  log?: string;
  watchdog: boolean;
}

export interface SnoozeResult {
  instanceId: number;
  /** The snooze ends (ms). */
  until: number;
  /** 'ssh': the watchdog's snooze file was written; 'local': only this window's warnings pause (no watchdog). */
  via: 'ssh' | 'local';
}

export interface GuardMonitorOptions {
  instances: { readonly instances: readonly Instance[]; readonly onDidChange: Event<readonly Instance[]> };
  remote?: GuardRemote;
  defaults(): GuardDefaults;
  state: KeyValueStore;
  log: Logger;
  now?(): number;
  /** Minimum time between two state reads of one instance over SSH. Default 60 s. */
  remoteEveryMs?: number;
  /** Warn this long before the guard acts. Default 5 minutes. */
  warnBeforeMs?: number;
  /** How often warnings are re-checked between polls. Default 15 s. */
  tickMs?: number;
}

export interface Track {
  /** gpu_util below the threshold since (ms), from the list (instances without a reporting watchdog only). */
  idleSince?: number;
  watchdog?: Reading;
  readAt?: number;
  reading?: boolean;
  readError?: string;
  /** The warning shown and not withdrawn yet. */
  warned?: GuardWarning;
  /** The act the reporting guard planned at the last look, and the record then (to tell what it did). */
  planned?: Omit<GuardWarning, 'instance'>;
  lastRunning?: Instance;
  /** Warnings pause until (after Keep Running). */
  quietUntil?: number;
  /** onActed fired for the current act. */
  told?: boolean;
  /** The end of guard.log at the last read that had one (kept after a stop: the disk is out of reach then). */
  lastLog?: string;
}

export type Next = Omit<GuardWarning, 'instance'>;
