// What VS Code knows about each instance's idle guard, and when to warn before it acts.
// For an instance with a watchdog, warnings come from the watchdog's own state file only (read
// over SSH at most once a minute per instance: its idle-since and acts-at), never from the
// list's gpu_util (0 at boot, sampled, late). A warning is withdrawn when the guard no longer
// plans that act (busy again, snoozed, stopped), a new idle stretch gets a new warning, and
// when the guard stopped or destroyed the instance `onActed` says so once. Instances without a
// (reporting) watchdog are judged from gpu_util alone, and only ever get a warning that
// promises nothing: nothing here stops or destroys anything by itself. No `vscode`.
import type { Instance, Logger } from '../api/types';
import { Emitter, type Disposable, type Event } from '../core/events';
import type { KeyValueStore } from '../core/ports';
import type { GuardActed, GuardPort, GuardStatus, GuardWarning, GuardWithdrawal, SnoozeResult } from '../core/guardPort';
import { DEFAULT_GUARD, installedGuard, type GuardDefaults, type InstalledGuard } from './installed';
import type { GuardRemote, WatchdogState } from './remote';
import { activity, clock, durationWords, localTime, notReporting, readings, reporting, type Reading } from './statusText';
import { background } from '../core/background';
import { GUARD_NO_WARN_KEY } from '../core/stateKeys';
import * as l10n from '@vscode/l10n';

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

interface Track {
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

type Next = Omit<GuardWarning, 'instance'>;

/** What the row assumes about a watchdog not read yet, right after a snooze was written to it. */
function placeholderState(g: InstalledGuard, now: number): WatchdogState {
  const t = Math.floor(now / 1000);
  return {
    version: 1,
    startedAt: t,
    updatedAt: t,
    action: g.action,
    idleLimitSeconds: g.idleMinutes * 60,
    gpu: null,
    gpuUtil: null,
    sshSessions: 0,
    heartbeatAgeSeconds: null,
    snoozedUntil: null,
    busyReason: null,
    idleSince: null,
    actAt: null,
    capAt: null,
    capReason: null,
    failures: 0,
    nextRetryAt: null,
    lastError: null,
    doneAt: null,
  };
}

const minutes = (ms: number) => Math.max(0, Math.floor(ms / 60_000));

export class GuardMonitor implements GuardPort, Disposable {
  private readonly tracks = new Map<number, Track>();
  private readonly changed = new Emitter<void>();
  private readonly warned = new Emitter<GuardWarning>();
  private readonly withdrawn = new Emitter<GuardWithdrawal>();
  private readonly acted = new Emitter<GuardActed>();
  readonly onDidChange: Event<void> = this.changed.event;
  readonly onWarn: Event<GuardWarning> = this.warned.event;
  readonly onWithdraw: Event<GuardWithdrawal> = this.withdrawn.event;
  readonly onActed: Event<GuardActed> = this.acted.event;
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
    // The log too: Show Instance Details follows this event and must show the current log, not the one it opened with.
    const sig = [...this.tracks.keys()]
      .map((id) => {
        const st = this.status(id);
        return `${id}:${st?.text ?? ''}:${st?.log?.slice(-80) ?? ''}`;
      })
      .join('|');
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
        this.left(inst.id, t, inst, now);
        continue;
      }
      t.lastRunning = inst;
      delete t.told;
      const g = installedGuard(inst.onstart);
      const below = g?.gpuUtilBelow ?? this.defaults().gpuUtilBelow;
      if (typeof inst.gpu_util === 'number') {
        if (inst.gpu_util < below) t.idleSince ??= now;
        else delete t.idleSince;
      }
      if (g && this.o.remote && !t.reading && (t.readAt === undefined || now - t.readAt >= this.remoteEvery))
        background(this.read(inst.id), this.o.log, 'reading the guard state');
      this.maybeWarn(inst, g, t, now);
    }
    for (const [id, t] of [...this.tracks]) {
      if (seen.has(id)) continue;
      this.left(id, t, undefined, now);
      this.tracks.delete(id);
    }
    this.notify();
  }

  /**
   * The instance stopped (`after`) or left the list (undefined). When its reporting guard was due
   * then (the container, and the guard's own record of the act, are gone by the next read), it
   * was the guard: the stopped row says why, and onActed tells it once.
   */
  private left(id: number, t: Track, after: Instance | undefined, now: number): void {
    delete t.idleSince;
    const p = t.planned;
    const w = t.watchdog;
    delete t.planned;
    if (w?.state && w.state.doneAt === null && p && p.action !== 'none' && p.actAt <= now + 90_000) {
      t.watchdog = { ...w, state: { ...w.state, doneAt: Math.round((p.actAt - localTime(w)(0)) / 1000) } };
    }
    const s = t.watchdog?.state;
    // Out of the list: only a destroying guard explains that (a stopped machine stays listed; one list may just miss it).
    if (s && s.doneAt !== null && t.watchdog && !t.told && t.lastRunning && (after || s.action === 'destroy')) {
      t.told = true;
      const reason = p?.reason ?? (s.capAt !== null && s.capAt <= s.doneAt ? (s.capReason === 'maxSpend' ? 'maxSpend' : 'maxHours') : 'idle');
      this.acted.fire({
        before: t.lastRunning,
        ...(after ? { after } : {}),
        action: s.action,
        reason,
        at: localTime(t.watchdog)(s.doneAt),
        idleLimitSeconds: s.idleLimitSeconds,
      });
    }
    this.withdraw(id, t, s?.doneAt != null ? 'acted' : 'gone');
    if (s?.doneAt == null) delete t.watchdog;
  }

  private withdraw(id: number, t: Track, why: GuardWithdrawal['why']): void {
    const w = t.warned;
    if (!w) return;
    delete t.warned;
    this.withdrawn.fire({ instanceId: id, key: w.key, why });
  }

  /** When the guard plans to act on the instance (ms, local clock), as it last reported; undefined when nothing is planned. */
  plannedAct(instanceId: number): { at: number; action: 'stop' | 'destroy' } | undefined {
    const p = this.tracks.get(instanceId)?.planned;
    return p && p.action !== 'none' ? { at: p.actAt, action: p.action } : undefined;
  }

  /** Whether a warning still holds (its buttons act only then). */
  isCurrent(instanceId: number, key: string): boolean {
    return this.tracks.get(instanceId)?.warned?.key === key;
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

  /** The end of guard.log as last read while the instance ran (for a stopped instance's Show Idle Guard Log). */
  lastLog(id: number): string | undefined {
    return this.tracks.get(id)?.lastLog;
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
      if (r?.log) t.lastLog = r.log;
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

  /**
   * When the guard acts next, and why; undefined when nothing is due (busy, snoozed, acted). A
   * watchdog's plan is read from its own state only; an instance whose watchdog was not read yet
   * is judged by its hard cap alone (the list's uptime; gpu_util says nothing of what it sees).
   */
  private next(inst: Instance, guard: InstalledGuard | undefined, t: Track, now: number): Next | undefined {
    let g = guard;
    const f = this.fresh(t, now);
    if (g && f?.state && reporting(f)) {
      const s = f.state;
      if (s.doneAt !== null) return undefined;
      const at = localTime(f);
      const limit = s.idleLimitSeconds / 60;
      const options: Next[] = [];
      if (s.actAt !== null)
        options.push({
          actAt: at(s.actAt),
          action: s.action,
          reason: 'idle',
          idleMinutes: limit,
          ...(s.idleSince !== null ? { idleSince: at(s.idleSince) } : {}),
          key: `idle:${s.idleSince ?? s.actAt}`,
        });
      if (s.capAt !== null)
        options.push({ actAt: at(s.capAt), action: s.action, reason: s.capReason === 'maxSpend' ? 'maxSpend' : 'maxHours', idleMinutes: limit, key: 'cap' });
      return options.sort((a, b) => a.actAt - b.actAt)[0];
    }
    // A watchdog that did not report at the last read will not act: warn as for an instance without one.
    if (g && t.watchdog && !reporting(t.watchdog)) g = undefined;
    const options: Next[] = [];
    const idleMinutes = g?.idleMinutes ?? this.defaults().idleMinutes;
    if (!g && t.idleSince !== undefined)
      options.push({
        actAt: t.idleSince + idleMinutes * 60_000,
        action: 'none',
        reason: 'idle',
        idleMinutes,
        idleSince: t.idleSince,
        key: `list:${t.idleSince}`,
      });
    if (g?.capSeconds !== undefined && typeof inst.uptime_mins === 'number') {
      // One cap per run, whether judged from the list's uptime or (above) the guard's own capAt: no new act when either moves.
      options.push({
        actAt: now - inst.uptime_mins * 60_000 + g.capSeconds * 1000,
        action: g.action,
        reason: g.capWhy === 'maxSpend' ? 'maxSpend' : 'maxHours',
        idleMinutes,
        key: 'cap',
      });
    }
    return options.sort((a, b) => a.actAt - b.actAt)[0];
  }

  private maybeWarn(inst: Instance, g: InstalledGuard | undefined, t: Track, now: number): void {
    const n = this.next(inst, g, t, now);
    t.planned = n && n.action !== 'none' ? n : undefined;
    const due = n && n.actAt - now <= (this.o.warnBeforeMs ?? 5 * 60_000) ? n : undefined;
    const quiet = t.quietUntil !== undefined && now < t.quietUntil;
    // The warning shown no longer holds: the guard is busy again, snoozed, or plans another act.
    if (t.warned && (!n || n.key !== t.warned.key || quiet)) this.withdraw(inst.id, t, quiet ? 'snoozed' : 'busy');
    if (!due || quiet || t.warned?.key === due.key) return;
    if (this.noWarn().includes(inst.id)) return;
    const w: GuardWarning = { instance: inst, ...due };
    t.warned = w;
    this.warned.fire(w);
  }

  /** What the row and tooltip say; undefined for instances that are not running. */
  status(id: number): GuardStatus | undefined {
    const inst = this.o.instances.instances.find((i) => i.id === id);
    const t = this.tracks.get(id);
    if (!inst || !t) return undefined;
    if (inst.state !== 'running') {
      const w = t.watchdog;
      if (!w?.state || w.state.doneAt === null) return undefined;
      const at = clock(localTime(w)(w.state.doneAt));
      const idle = durationWords(w.state.idleLimitSeconds);
      const done =
        w.state.action === 'destroy'
          ? l10n.t('destroyed by its idle guard at {0} (idle {1})', at, idle)
          : l10n.t('stopped by its idle guard at {0} (idle {1})', at, idle);
      return { text: done, details: [l10n.t("Idle guard: {0}, with the instance's own key.", done)], watchdog: true, ...(w.log ? { log: w.log } : {}) };
    }
    const now = this.now();
    const g = installedGuard(inst.onstart);
    const details: string[] = [];
    if (!g) {
      const d = this.defaults();
      if (t.idleSince === undefined)
        return { text: '', details: [l10n.t('Idle guard: none on this instance (created elsewhere or with "guard": false)')], watchdog: false };
      return {
        text: l10n.t('no guard · idle {0} min', minutes(now - t.idleSince)),
        details: [
          l10n.t(
            'Idle guard: none on this instance; GPU below {0} % for {1} min (VS Code only warns, it never stops it)',
            d.gpuUtilBelow,
            minutes(now - t.idleSince),
          ),
        ],
        watchdog: false,
      };
    }
    const destroys = g.action === 'destroy';
    let text = destroys ? l10n.t('guard: destroys after {0} idle min', g.idleMinutes) : l10n.t('guard: stops after {0} idle min', g.idleMinutes);
    const f = this.fresh(t, now);
    const startedMinutesAgo = typeof inst.uptime_mins === 'number' ? inst.uptime_mins : Infinity;
    if (f?.state && reporting(f)) {
      const r = { ...f, state: f.state };
      const doing = activity(r, now);
      text = l10n.t('guard: {0}', doing);
      details.push(l10n.t('Idle guard: {0} · {1}', doing, readings(r, now)));
    } else if (f && (f.state || startedMinutesAgo >= 3)) {
      const n = notReporting(f, g);
      text = n.text;
      details.push(...n.details);
    } else {
      // No idle minutes from the list's gpu_util: only the guard knows what it counts (SSH sessions, heartbeat, its own GPU reading).
      details.push(
        t.readError
          ? l10n.t(
              'Idle guard: its state could not be read over SSH yet (the reason is in the GPU Rental log); its idle time and warnings come from its own state once read',
            )
          : f
            ? l10n.t('Idle guard: starting on the instance')
            : l10n.t('Idle guard: its idle time and warnings come from its own state, read over SSH once the instance has an SSH entry here'),
      );
    }
    const ssh = g.keepWhileSsh ? l10n.t(' and no SSH session') : '';
    details.push(
      destroys
        ? l10n.t('Settings: destroy the instance after {0} min with GPUs below {1} %, no heartbeat{2}', g.idleMinutes, g.gpuUtilBelow, ssh)
        : l10n.t('Settings: stop the instance after {0} min with GPUs below {1} %, no heartbeat{2}', g.idleMinutes, g.gpuUtilBelow, ssh),
    );
    if (g.capSeconds !== undefined)
      details.push(
        l10n.t('Hard cap ({0}): after {1} h running, whatever the activity', String(g.capWhy), (g.capSeconds / 3600).toFixed(g.capSeconds % 3600 ? 1 : 0)),
      );
    // The log of the last read only while it is recent (a read that failed since leaves an old one).
    return { text, details, watchdog: true, ...(f?.log ? { log: f.log } : {}) };
  }

  /**
   * Keep Running: writes the snooze file over SSH (instances with a watchdog), and pauses this
   * window's warnings for the instance. `minutes` 0 ends a snooze.
   */
  async snooze(id: number, mins: number): Promise<SnoozeResult> {
    if (!Number.isInteger(mins) || mins < 0 || mins > 7 * 24 * 60) throw new Error(l10n.t('minutes must be a whole number from 0 to 10080.'));
    const inst = this.o.instances.instances.find((i) => i.id === id);
    if (!inst) throw new Error(l10n.t('Instance {0} is not in the list. Refresh the Instances view and try again.', id));
    const t = this.tracks.get(id) ?? {};
    this.tracks.set(id, t);
    const now = this.now();
    const g = installedGuard(inst.onstart);
    let result: SnoozeResult;
    if (g) {
      if (!this.o.remote) throw new Error(l10n.t('The guard on this instance can only be snoozed over SSH, which is not available here.'));
      const epoch = await this.o.remote.snooze(id, mins);
      const until = now + mins * 60_000;
      // Until the next regular read (the watchdog applies it on its next tick), the row says what was written.
      const remoteNow = epoch - mins * 60;
      t.watchdog = {
        state: {
          ...(t.watchdog?.state ?? placeholderState(g, now)),
          snoozedUntil: mins ? epoch : null,
          idleSince: null,
          actAt: null,
          failures: 0,
          lastError: null,
          updatedAt: remoteNow,
        },
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
    if (mins) this.withdraw(id, t, 'snoozed');
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
    this.withdrawn.dispose();
    this.acted.dispose();
  }
}
