// An in-memory state store with VS Code's Memento semantics (a copy is stored; undefined removes).
import type { KeyValueStore } from '../../src/core/ports';

export class MemoryState implements KeyValueStore {
  data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.put(key, value);
  }
  /** As VS Code's Memento: a copy is kept; undefined removes the key. */
  protected put(key: string, value: unknown): void {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, JSON.parse(JSON.stringify(value)));
  }
}

/**
 * As VS Code's globalState: a write is in memory at once, stored by a flush 10 ms later, and the
 * stored value comes back (replacing memory) 15 ms after that, as the window hears of its own
 * write; the write's promise settles after that echo.
 */
export class EchoingState extends MemoryState {
  private flush: Promise<void> | undefined;
  override update(key: string, value: unknown): Promise<void> {
    this.put(key, value); // in memory at once
    this.flush ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        this.flush = undefined;
        const stored = new Map(this.data);
        setTimeout(() => {
          this.data = new Map(stored);
          resolve();
        }, 15);
      }, 10),
    );
    return this.flush;
  }
}
