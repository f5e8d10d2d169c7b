// The one place that decides an instance is gone, for every record the extension keeps per
// instance in globalState / workspaceState (the create flow's SSH options, the guard's "don't warn
// again", …). Without it those records outlive their instances and grow for as long as the
// extension is used. An instance is gone when we destroyed it and the service said yes, or when
// two successful list reads in a row leave it out after a read of the same connection listed it
// (the rule entry sync follows: one read that misses it proves nothing; and an instance another
// account's key never lists is not gone). A creation still in flight is never judged: the create flow owns
// its records and settles them itself.
import { AbsenceRule } from '../api/visibility';
import type { Instance, Logger } from '../api/types';
import type { Disposable, Event } from '../core/events';
import type { KeyValueStore } from '../core/ports';
import type { InstanceGonePort, PerInstanceRecords } from '../core/storePorts';
import { INFLIGHT_STATE_KEY } from '../core/stateKeys';
import { background } from '../core/background';

export interface InstanceGoneDeps {
  instances: {
    readonly instances: readonly Instance[];
    readonly onDidChange: Event<readonly Instance[]>;
    readonly loaded?: boolean;
    /** Successful reads since the connection changed: an upsert or a remove fires onDidChange too, but is no read. */
    readonly reads: number;
  };
  /**
   * False while the list cannot speak for the records: signed out, or the demo (the records of
   * the real account's instances are in the same globalState, and the demo's list never shows them).
   */
  judging(): boolean;
  /** Ids of creations still in flight (globalState gpuRental.templates.inflight). */
  inFlight(): readonly number[];
  log: Logger;
}

export class InstanceGone implements InstanceGonePort, Disposable {
  private readonly stores: PerInstanceRecords[] = [];
  private readonly absence = new AbsenceRule();
  private lastRead: number | undefined;
  /** Ids listed by a read of this connection: only their absence can mean anything. */
  private readonly seen = new Set<number>();
  private chain: Promise<void> = Promise.resolve();
  private readonly sub: Disposable;

  constructor(private readonly d: InstanceGoneDeps) {
    this.sub = d.instances.onDidChange(() => this.read());
  }

  /** Every per-instance store subscribes here; its records go when their instance does. */
  register(store: PerInstanceRecords): Disposable {
    this.stores.push(store);
    return { dispose: () => void this.stores.splice(this.stores.indexOf(store) >>> 0, 1) };
  }

  /** We destroyed the instance and the service confirmed it. */
  destroyed(id: number): Promise<void> {
    if (!this.d.judging()) return this.chain;
    return this.forget([id], 'destroyed');
  }

  /** Waits for the records being forgotten now (tests, shutdown). */
  settled(): Promise<void> {
    return this.chain;
  }

  private read(): void {
    const list = this.d.instances;
    if (!this.d.judging() || list.loaded === false) {
      this.absence.reset();
      this.seen.clear();
      this.lastRead = undefined;
      return;
    }
    if (list.reads === this.lastRead) return;
    this.lastRead = list.reads;
    const listed = new Set(list.instances.map((i) => i.id));
    listed.forEach((id) => this.seen.add(id));
    // A record whose instance this connection never listed may be another account's (the user
    // switched API keys) or one destroyed while VS Code was closed: its absence proves nothing.
    const held = new Set(this.stores.flatMap((s) => s.ids()));
    const gone = this.absence.read([...held].filter((id) => this.seen.has(id) && !listed.has(id)));
    if (gone.length) background(this.forget(gone, 'confirmed gone by two list reads'), this.d.log, 'forgetting the records of gone instances');
  }

  private forget(ids: readonly number[], why: string): Promise<void> {
    this.chain = this.chain.then(async () => {
      const flying = new Set(this.d.inFlight());
      const gone = ids.filter((id) => !flying.has(id));
      if (!gone.length) return;
      for (const s of [...this.stores]) {
        const mine = new Set(s.ids());
        const drop = gone.filter((id) => mine.has(id));
        if (!drop.length) continue;
        try {
          await s.forget(drop);
          this.d.log.debug(`records: forgot ${s.name} of instance${drop.length > 1 ? 's' : ''} ${drop.join(', ')} (${why})`);
        } catch (e) {
          this.d.log.warn(`records: could not forget ${s.name} of instance ${drop.join(', ')}: ${(e as Error).message}`);
        }
      }
    });
    return this.chain;
  }

  dispose(): void {
    this.sub.dispose();
    this.stores.length = 0;
  }
}

/** Ids of the creations in flight, as the create flow records them. */
export function inFlightIds(state: KeyValueStore): number[] {
  const v = state.get<unknown>(INFLIGHT_STATE_KEY);
  return Array.isArray(v)
    ? v.flatMap((r) => (r && typeof (r as { instanceId?: unknown }).instanceId === 'number' ? [(r as { instanceId: number }).instanceId] : []))
    : [];
}

/** A state key holding a record per instance id: `{ "<id>": … }`. */
export function recordsById(name: string, state: KeyValueStore, key: string): PerInstanceRecords {
  const read = (): Record<string, unknown> => {
    const v = state.get<unknown>(key);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  };
  return {
    name,
    ids: () => Object.keys(read()).map(Number).filter(Number.isSafeInteger),
    forget: async (ids) => {
      const next = { ...read() };
      for (const id of ids) delete next[String(id)];
      await state.update(key, Object.keys(next).length ? next : undefined);
    },
  };
}

/** A state key holding a list of instance ids. */
export function idList(name: string, state: KeyValueStore, key: string): PerInstanceRecords {
  const read = (): unknown[] => {
    const v = state.get<unknown>(key);
    return Array.isArray(v) ? v : [];
  };
  return {
    name,
    ids: () => read().filter((x): x is number => typeof x === 'number'),
    forget: async (ids) => {
      const drop = new Set(ids);
      const next = read().filter((x) => !(typeof x === 'number' && drop.has(x)));
      await state.update(key, next.length ? next : undefined);
    },
  };
}
