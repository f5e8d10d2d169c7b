// Keeps host entries following the instance list: rewritten when an instance moves, removed
// when it is destroyed, added for running instances the create flow registered. Plain
// TypeScript: the commands layer passes settings and the store in.
import { AbsenceRule } from '../api/visibility';
import type { Instance, Logger } from '../api/types';
import type { SshOptionsByInstance } from './sshTypes';
import type { SshConfigWriter } from './sshConfigWriter';
import { background } from '../core/background';

// The shapes of core/events' Disposable and Event, named here so this file needs no import for them.
interface Disposable {
  dispose(): void;
}
type Event<T> = (listener: (e: T) => void) => Disposable;

export interface EntrySyncDeps {
  instances: { readonly instances: readonly Instance[]; readonly onDidChange: Event<readonly Instance[]>; readonly loaded?: boolean };
  /** False while signed out, or when the user turned gpuRental.ssh.manageConfig off. */
  enabled(): boolean;
  /** A writer for the current settings and connection (may be loaded on demand). */
  writer(): SshConfigWriter | Promise<SshConfigWriter>;
  /** The create flow's per-instance options (globalState gpuRental.sshOptions). */
  registered(): SshOptionsByInstance;
  log: Logger;
  debounceMs?: number;
}

/** Lists that arrive together are one reconcile; short, so a started machine's entry follows its list at once. */
const DEBOUNCE_MS = 300;

export function startEntrySync(d: EntrySyncDeps): Disposable & { flush(): Promise<void> } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  // Every poll fires onDidChange; most polls change nothing the entries depend on, and then
  // the lock and the config file need not be touched.
  let lastReconciled: string | undefined;
  // An entry (and its pinned host key) goes only when two reads in a row leave its instance out.
  const absence = new AbsenceRule();
  const run = async () => {
    // An empty list right after a connection change means "not loaded yet", not "all destroyed".
    if (!d.enabled() || d.instances.loaded === false) {
      lastReconciled = undefined;
      return;
    }
    const registered = d.registered();
    const key = JSON.stringify([d.instances.instances.map((i) => [i.id, i.state, i.ssh_host, i.ssh_port, i.public_ipaddr, i.ports, i.label]), registered]);
    if (key === lastReconciled) return;
    try {
      const w = await d.writer();
      const listed = new Set(d.instances.instances.map((i) => i.id));
      const missing = (await w.entries()).map((e) => e.id).filter((id) => !listed.has(id));
      const gone = new Set(absence.read(missing));
      const keep = new Set(missing.filter((id) => !gone.has(id)));
      await w.reconcile(d.instances.instances, registered, { keep });
      // With an entry kept on one read, the next poll must run again even if the list is the same.
      lastReconciled = keep.size ? undefined : key;
    } catch (e) {
      d.log.warn(`ssh: keeping SSH entries in step with instances failed: ${(e as Error).message}`);
    }
  };
  const schedule = () => {
    chain = chain.then(run);
    return chain;
  };
  const sub = d.instances.onDidChange(() => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      background(schedule(), d.log, 'syncing SSH entries');
    }, d.debounceMs ?? DEBOUNCE_MS);
  });
  return {
    /** Runs a pending reconcile now (and waits for one in progress). */
    flush() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
        return schedule();
      }
      return chain;
    },
    dispose() {
      if (timer) clearTimeout(timer);
      sub.dispose();
    },
  };
}
