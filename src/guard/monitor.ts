// What VS Code knows about each instance's idle guard, and when to warn before it acts.
// Two sources: the instance list (gpu_util, checked on every poll) and, for instances with a
// watchdog and an SSH entry here, the watchdog's own state file (read over SSH at most once a
// minute per instance). Instances without a watchdog are judged from gpu_util alone, and only
// ever get a warning: nothing here stops or destroys anything by itself. No `vscode`.
import type { Instance, Logger } from '../api/types';
import { Emitter, type Disposable, type Event } from '../core/events';
import type { KeyValueStore } from '../core/ports';
import { DEFAULT_GUARD, installedGuard, type GuardDefaults, type InstalledGuard } from './installed';
import type { GuardRemote, WatchdogState } from './remote';
import { activity, clock, durationWords, localTime, notReporting, readings, reporting, type Reading } from './statusText';
import { background } from '../core/background';
import { GUARD_NO_WARN_KEY } from '../core/stateKeys';

export interface GuardWarning {
  instance: Instance;
  /** When the guard will act (ms, local clock), or for instances without a watchdog when it has been idle idleMinutes. */
  actAt: number;
  /** What will happen: the watchdog's action, or nothing (no watchdog: a warning only). */
  action: 'stop' | 'destroy' | 'none';
  reason: 'idle' | 'maxHours' | 'maxSpend';
  /** The idle limit (a fraction below a minute: a test's or a demo's guard). */
  idleMinutes: number;
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
  /** At most one warning per instance this often. Default 1 hour. */
  warnEveryMs?: number;
  /** How often warnings are re-checked between polls. Default 15 s. */
  tickMs?: number;
}

interface Track {
  /** gpu_util below the threshold since (ms), from the list. */
  idleSince?: number;
  watchdog?: Reading;
  readAt?: number;
  reading?: boolean;
  readError?: string;
  lastWarnAt?: number;
  /** Warnings pause until (after Keep Running). */
  quietUntil?: number;
}

/** What the row assumes about a watchdog not read yet, right after a snooze was written to it. */
function placeholderState(g: InstalledGuard, now: number): WatchdogState {
  const t = Math.floor(now / 1000);
  return {
    version: 1, startedAt: t, updatedAt: t, action: g.action, idleLimitSeconds: g.idleMinutes * 60, gpu: null, gpuUtil: null,
    sshSessions: 0, heartbeatAgeSeconds: null, snoozedUntil: null, busyReason: null, idleSince: null, actAt: null, capAt: null,
    capReason: null, failures: 0, nextRetryAt: null, lastError: null, doneAt: null,
  };
}

const minutes = (ms: number) => Math.max(0, Math.floor(ms / 60_000));

export class GuardMonitor implements Disposable {
  private readonly tracks = new Map<number, Track>();
  private readonly changed = new Emitter<void>();
  private readonly warned = new Emitter<GuardWarning>();
  readonly onDidChange: Event<void> = this.changed.event;
  readonly onWarn: Event<GuardWarning> = this.warned.event;
  private readonly subs: Disposable[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly o: GuardMonitorOptions) {
    this.now = o.now ?? Date.now;
    this.subs.push(o.instances.onDidChange(() => this.update()));
    this.timer = setInterval(() => this.update(), o.tickMs ?? 15_000);
    this.timer.unref?.();
    // After the constructor: listeners of onWarn subscribe first.
    queueMicrotask(() => this.update());
  }

  private defaults(): GuardDefaults {
    try {
      return this.o.defaults();
    } catch {
      return DEFAULT_GUARD;
    }
  }

  private noWarn(): number[] {
    const v = this.o.state.get<number[]>(GUARD_NO_WARN_KEY);
    return Array.isArray(v) ? v.filter((x) => typeof x === 'number') : [];
  }

  private shown = '';

  /** Tells the views, only when some row's guard text changed (no repaint per poll). */
  private notify(): void {
    const sig = [...this.tracks.keys()].map((id) => `${id}:${this.status(id)?.text ?? ''}`).join('|');
    if (sig === this.shown) return;
    this.shown = sig;
    this.changed.fire();
  }

  /** Re-reads the list: idle tracking, due SSH reads, warnings. */
  update(): void {
    const now = this.now();
    const seen = new Set<number>();
    for (const inst of this.o.instances.instances) {
      seen.add(inst.id);
      const t = this.tracks.get(inst.id) ?? {};
      this.tracks.set(inst.id, t);
      if (inst.state !== 'running') {
        delete t.idleSince;
        // It stopped when its reporting guard was due (the container, and the guard's own record
        // of the stop, are gone by the next read): the stopped row says why.
        const w = t.watchdog;
        if (w?.state && w.state.doneAt === null && w.state.actAt !== null && reporting(w) && localTime(w)(w.state.actAt) <= now + 90_000) {
          t.watchdog = { ...w, state: { ...w.state, doneAt: w.state.actAt } };
        }
        if (t.watchdog?.state?.doneAt == null) delete t.watchdog;
        continue;
      }
      const g = installedGuard(inst.onstart);
      const below = g?.gpuUtilBelow ?? this.defaults().gpuUtilBelow;
      if (typeof inst.gpu_util === 'number') {
        if (inst.gpu_util < below) t.idleSince ??= now;
        else delete t.idleSince;
      }
      if (g && this.o.remote && !t.reading && (t.readAt === undefined || now - t.readAt >= this.remoteEvery)) background(this.read(inst.id), this.o.log, 'reading the guard state');
      this.maybeWarn(inst, g, t, now);
    }
    for (const id of [...this.tracks.keys()]) if (!seen.has(id)) this.tracks.delete(id);
    this.notify();
  }

  private get remoteEvery(): number {
    return this.o.remoteEveryMs ?? 60_000;
  }

  /**
   * The watchdog's view is about to change (a snooze written, the demo's GPU load set) or can be
   * read now (its SSH entry was just written): read it again just after its next tick instead of
   * up to a minute later, so the row and any warning follow within seconds.
   */
  readSoon(id: number): void {
    const t = this.tracks.get(id);
    if (!t) return;
    // Its tick once it has reported; before that, in a moment (its first report comes within seconds of its start).
    const tick = t.watchdog?.state?.tickSeconds ?? 0;
    const delay = Math.min(this.remoteEvery, (tick + 2) * 1000);
    // Sooner only: a read already due (or due before then) stays as it is.
    const soon = this.now() - this.remoteEvery + delay;
    if (t.readAt === undefined || t.readAt <= soon) return;
    t.readAt = soon;
    setTimeout(() => this.update(), delay + 50).unref?.();
  }

  /** The end of the instance's guard.log over SSH; undefined when it has no SSH entry here (or nothing reads over SSH). */
  async readLog(id: number): Promise<string | undefined> {
    return this.o.remote?.readLog(id);
  }

  private async read(id: number): Promise<void> {
    const t = this.tracks.get(id);
    if (!t || !this.o.remote) return;
    t.reading = true;
    t.readAt = this.now();
    try {
      const r = await this.o.remote.readState(id);
      if (r) t.watchdog = { ...(r.state ? { state: r.state } : {}), ...(r.log ? { log: r.log } : {}), readAt: this.now(), remoteNow: r.now };
      // No SSH entry (yet: it is written once the instance runs): look again in 10 s, not in a minute.
      else t.readAt = this.now() - this.remoteEvery + 10_000;
      delete t.readError;
    } catch (e) {
      t.readError = e instanceof Error ? e.message : 'unknown error';
      // The raw reason goes to the log only; the row says it in words.
      this.o.log.info(`guard: could not read the guard state of instance ${id}: ${t.readError}`);
    } finally {
      t.reading = false;
    }
    const inst = this.o.instances.instances.find((i) => i.id === id);
    if (inst && inst.state === 'running') this.maybeWarn(inst, installedGuard(inst.onstart), t, this.now());
    this.notify();
  }

  /** The last read of the instance, when recent enough to trust (3 read intervals). */
  private fresh(t: Track, now: number): Reading | undefined {
    if (!t.watchdog || now - t.watchdog.readAt > 3 * this.remoteEvery + 30_000) return undefined;
    return t.watchdog;
  }

  /** When the guard acts next, and why; undefined when nothing is due (busy, snoozed, acted). */
  private next(inst: Instance, guard: InstalledGuard | undefined, t: Track, now: number): Omit<GuardWarning, 'instance'> | undefined {
    let g = guard;
    const f = this.fresh(t, now);
    if (g && f?.state && reporting(f)) {
      const s = f.state;
      if (s.doneAt !== null) return undefined;
      const at = localTime(f);
      const options: Array<Omit<GuardWarning, 'instance'>> = [];
      if (s.actAt !== null) options.push({ actAt: at(s.actAt), action: s.action, reason: 'idle', idleMinutes: s.idleLimitSeconds / 60 });
      if (s.capAt !== null) options.push({ actAt: at(s.capAt), action: s.action, reason: s.capReason === 'maxSpend' ? 'maxSpend' : 'maxHours', idleMinutes: s.idleLimitSeconds / 60 });
      return options.sort((a, b) => a.actAt - b.actAt)[0];
    }
    // A watchdog that did not report at the last read will not act: warn as for an instance without one.
    if (g && t.watchdog && !reporting(t.watchdog)) g = undefined;
    const options: Array<Omit<GuardWarning, 'instance'>> = [];
    const idleMinutes = g?.idleMinutes ?? this.defaults().idleMinutes;
    if (t.idleSince !== undefined) options.push({ actAt: t.idleSince + idleMinutes * 60_000, action: g?.action ?? 'none', reason: 'idle', idleMinutes });
    if (g?.capSeconds !== undefined && typeof inst.uptime_mins === 'number') {
      options.push({ actAt: now - inst.uptime_mins * 60_000 + g.capSeconds * 1000, action: g.action, reason: g.capWhy === 'maxSpend' ? 'maxSpend' : 'maxHours', idleMinutes });
    }
    return options.sort((a, b) => a.actAt - b.actAt)[0];
  }

  private maybeWarn(inst: Instance, g: InstalledGuard | undefined, t: Track, now: number): void {
    const n = this.next(inst, g, t, now);
    if (!n || n.actAt - now > (this.o.warnBeforeMs ?? 5 * 60_000)) return;
    if (t.quietUntil !== undefined && now < t.quietUntil) return;
    if (t.lastWarnAt !== undefined && now - t.lastWarnAt < (this.o.warnEveryMs ?? 60 * 60_000)) return;
    if (this.noWarn().includes(inst.id)) return;
    t.lastWarnAt = now;
    this.warned.fire({ instance: inst, ...n });
  }

  /** What the row and tooltip say; undefined for instances that are not running. */
  status(id: number): GuardStatus | undefined {
    const inst = this.o.instances.instances.find((i) => i.id === id);
    const t = this.tracks.get(id);
    if (!inst || !t) return undefined;
    if (inst.state !== 'running') {
      const w = t.watchdog;
      if (!w?.state || w.state.doneAt === null) return undefined;
      const done = `${w.state.action === 'destroy' ? 'destroyed' : 'stopped'} by its idle guard at ${clock(localTime(w)(w.state.doneAt))} (idle ${durationWords(w.state.idleLimitSeconds)})`;
      return { text: done, details: [`Idle guard: ${done}, with the instance's own key.`], watchdog: true, ...(w.log ? { log: w.log } : {}) };
    }
    const now = this.now();
    const g = installedGuard(inst.onstart);
    const details: string[] = [];
    if (!g) {
      const d = this.defaults();
      if (t.idleSince === undefined) return { text: '', details: ['Idle guard: none on this instance (created elsewhere or with "guard": false)'], watchdog: false };
      return {
        text: `no guard · idle ${minutes(now - t.idleSince)} min`,
        details: [`Idle guard: none on this instance; GPU below ${d.gpuUtilBelow} % for ${minutes(now - t.idleSince)} min (VS Code only warns, it never stops it)`],
        watchdog: false,
      };
    }
    const verb = g.action === 'destroy' ? 'destroys' : 'stops';
    let text = `guard: ${verb} after ${g.idleMinutes} idle min`;
    const f = this.fresh(t, now);
    const startedMinutesAgo = typeof inst.uptime_mins === 'number' ? inst.uptime_mins : Infinity;
    if (f?.state && reporting(f)) {
      const r = { ...f, state: f.state };
      const doing = activity(r, now);
      text = `guard: ${doing}`;
      details.push(`Idle guard: ${doing} · ${readings(r, now)}`);
    } else if (f && (f.state || startedMinutesAgo >= 3)) {
      const n = notReporting(f, g);
      text = n.text;
      details.push(...n.details);
    } else {
      if (t.idleSince !== undefined) text += ` · idle ${minutes(now - t.idleSince)} min`;
      details.push(
        t.readError
          ? 'Idle guard: its state could not be read over SSH yet (the reason is in the GPU Rental log); idle time estimated from the GPU utilisation in the list'
          : f
            ? 'Idle guard: starting on the instance'
            : 'Idle guard: idle time estimated from the GPU utilisation in the list (its own view is read over SSH once the instance has an SSH entry here)',
      );
    }
    details.push(`Settings: ${verb} the instance after ${g.idleMinutes} min with GPUs below ${g.gpuUtilBelow} %, no heartbeat${g.keepWhileSsh ? ' and no SSH session' : ''}`);
    if (g.capSeconds !== undefined) details.push(`Hard cap (${g.capWhy}): after ${(g.capSeconds / 3600).toFixed(g.capSeconds % 3600 ? 1 : 0)} h running, whatever the activity`);
    return { text, details, watchdog: true, ...(t.watchdog?.log ? { log: t.watchdog.log } : {}) };
  }

  /**
   * Keep Running: writes the snooze file over SSH (instances with a watchdog), and pauses this
   * window's warnings for the instance. `minutes` 0 ends a snooze.
   */
  async snooze(id: number, mins: number): Promise<SnoozeResult> {
    if (!Number.isInteger(mins) || mins < 0 || mins > 7 * 24 * 60) throw new Error('minutes must be a whole number from 0 to 10080.');
    const inst = this.o.instances.instances.find((i) => i.id === id);
    if (!inst) throw new Error(`Instance ${id} is not in the list. Refresh the Instances view and try again.`);
    const t = this.tracks.get(id) ?? {};
    this.tracks.set(id, t);
    const now = this.now();
    const g = installedGuard(inst.onstart);
    let result: SnoozeResult;
    if (g) {
      if (!this.o.remote) throw new Error('The guard on this instance can only be snoozed over SSH, which is not available here.');
      const epoch = await this.o.remote.snooze(id, mins);
      const until = now + mins * 60_000;
      // Until the next regular read (the watchdog applies it on its next tick), the row says what was written.
      const remoteNow = epoch - mins * 60;
      t.watchdog = {
        state: { ...(t.watchdog?.state ?? placeholderState(g, now)), snoozedUntil: mins ? epoch : null, idleSince: null, actAt: null, failures: 0, lastError: null, updatedAt: remoteNow },
        readAt: now,
        remoteNow,
      };
      result = { instanceId: id, until, via: 'ssh' };
      // Until the watchdog's own next report: the row shows what was written, then what it did with it.
      this.readSoon(id);
    } else {
      result = { instanceId: id, until: now + mins * 60_000, via: 'local' };
      if (t.idleSince !== undefined) t.idleSince = now;
    }
    if (mins) t.quietUntil = result.until;
    else delete t.quietUntil;
    delete t.lastWarnAt;
    this.o.log.info(`guard: instance ${id} ${mins ? `kept running for ${mins} min` : 'snooze ended'} (${result.via})`);
    this.notify();
    return result;
  }

  /** Don't Warn Again, for this instance (remembered across restarts). */
  async dontWarn(id: number): Promise<void> {
    const list = this.noWarn();
    if (!list.includes(id)) await this.o.state.update(GUARD_NO_WARN_KEY, [...list, id].slice(-500));
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
    this.warned.dispose();
  }
}
