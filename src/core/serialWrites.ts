// Writes to one key-value store, one after another: each reads the store only once the write
// before it is stored. VS Code's globalState echoes each stored write back and holds that value
// until the next echo, so a write made while an earlier one was still being stored could be undone
// by that echo (a settled rental, or a destroyed group, come back after a reload).
import type { KeyValueStore } from './ports';

const queues = new WeakMap<KeyValueStore, Promise<void>>();

export function writeSerially(state: KeyValueStore, write: () => Promise<void>): Promise<void> {
  const next = (queues.get(state) ?? Promise.resolve()).catch(() => undefined).then(write);
  queues.set(state, next);
  return next;
}
