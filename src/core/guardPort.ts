// What the rest of the extension sees of the idle guard (src/guard/monitor.ts implements it):
// the warnings before it acts, its acts, each instance's guard line, snooze. Declared here, below
// every feature, so Services names this port and not the guard's class.
import type { Instance } from '../api/types';
import type { Event } from './events';

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

/** The idle guard of each instance as VS Code sees it (src/guard/monitor.ts). */
export interface GuardPort {
  readonly onDidChange: Event<void>;
  readonly onWarn: Event<GuardWarning>;
  readonly onWithdraw: Event<GuardWithdrawal>;
  readonly onActed: Event<GuardActed>;
  plannedAct(instanceId: number): { at: number; action: 'stop' | 'destroy' } | undefined;
  isCurrent(instanceId: number, key: string): boolean;
  readSoon(id: number): void;
  lastLog(id: number): string | undefined;
  readLog(id: number): Promise<string | undefined>;
  status(id: number): GuardStatus | undefined;
  snooze(id: number, mins: number): Promise<SnoozeResult>;
  dontWarn(id: number): Promise<void>;
}
