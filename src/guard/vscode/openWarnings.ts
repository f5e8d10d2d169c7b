// Which idle-guard warnings are on screen, so the one the monitor withdraws (busy again, snoozed,
// acted, gone) is closed: each is a progress notification that stays until its promise resolves.
// No `vscode`.

export interface OpenWarning<T> {
  readonly seq: number;
  readonly instanceId: number;
  readonly key: string;
  readonly data: T;
  /** Resolves once it is closed (withdrawn, replaced, dismissed, acted on, or all closed). */
  readonly closed: Promise<void>;
}

export class OpenWarnings<T> {
  private next = 1;
  private readonly open = new Map<number, OpenWarning<T> & { close: () => void }>();

  /** Opens a warning; one per instance: an older one for the same instance is closed. */
  add(instanceId: number, key: string, data: T): OpenWarning<T> {
    for (const o of [...this.open.values()]) if (o.instanceId === instanceId) this.closeSeq(o.seq);
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    const w = { seq: this.next++, instanceId, key, data, closed, close };
    this.open.set(w.seq, w);
    return w;
  }

  /** The warning of that number, while it is open. */
  get(seq: unknown): OpenWarning<T> | undefined {
    return typeof seq === 'number' ? this.open.get(seq) : undefined;
  }

  /** Closes the instance's warning about that planned act (the monitor withdrew it); false when none is open. */
  withdraw(instanceId: number, key: string): boolean {
    const w = [...this.open.values()].find((o) => o.instanceId === instanceId && o.key === key);
    return w ? this.closeSeq(w.seq) : false;
  }

  /** Closes the instance's warning, whatever act it was about (Don't Warn Again). */
  closeInstance(instanceId: number): boolean {
    const w = [...this.open.values()].find((o) => o.instanceId === instanceId);
    return w ? this.closeSeq(w.seq) : false;
  }

  closeSeq(seq: number): boolean {
    const w = this.open.get(seq);
    if (!w) return false;
    this.open.delete(seq);
    w.close();
    return true;
  }

  closeAll(): void {
    for (const seq of [...this.open.keys()]) this.closeSeq(seq);
  }

  get size(): number {
    return this.open.size;
  }
}
