// An in-memory state store with VS Code's Memento semantics (a copy is stored; undefined removes).
import type { KeyValueStore } from '../../src/core/ports';

export class MemoryState implements KeyValueStore {
  data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    // As VS Code's Memento: undefined removes the key.
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, JSON.parse(JSON.stringify(value)));
  }
}
