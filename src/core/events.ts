// A minimal event emitter with VS Code's shape, so plain-TypeScript cores can publish
// changes without importing `vscode`.
export interface Disposable {
  dispose(): void;
}
export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => void>();
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // one faulty listener must not stop the others
      }
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}
