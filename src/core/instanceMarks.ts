// Short notes a feature pins on an instance's row (a pending price increase, storage still
// billing after a stop) without the Instances view knowing the feature: the feature sets its
// marks under its own name, the view shows every mark of the row.
import { Emitter, type Disposable } from './events';

export interface InstanceMark {
  /** A few words for the row's description ("price +25 % pending"). */
  text: string;
  /** A sentence for the tooltip. */
  tooltip: string;
  /** A word appended to the row's contextValue, for the menus that act on the mark (`priceUp`). */
  context?: string;
}

export class InstanceMarks implements Disposable {
  private readonly bySource = new Map<string, Map<number, InstanceMark>>();
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;

  /** Replaces every mark of `source` (a feature's name). */
  set(source: string, marks: ReadonlyMap<number, InstanceMark>): void {
    const before = this.bySource.get(source);
    if (!before?.size && !marks.size) return;
    this.bySource.set(source, new Map(marks));
    this.changed.fire();
  }

  /** Every mark on one instance, in the order the sources first set theirs. */
  of(id: number): InstanceMark[] {
    return [...this.bySource.values()].flatMap((m) => (m.has(id) ? [m.get(id)!] : []));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
