// One action at a time per instance (and per offer or template for a rental): a second click on
// Recycle, Destroy, Start, Stop, Reboot, Change Bid or Rent while the first still runs (its
// confirmation included) is refused and sends nothing. Recycle destroys the disk's contents; two
// recycle requests must never come from one double click.

export class ActionGuard {
  private readonly running = new Map<string, string>();

  /**
   * Claims `key` (e.g. `instance:123`) for the action `what` ("Recycle"). Returns the release
   * function, or, when another action holds the key, that action's name (nothing may be sent).
   */
  claim(key: string, what: string): (() => void) | { busy: string } {
    const holder = this.running.get(key);
    if (holder !== undefined) return { busy: holder };
    this.running.set(key, what);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.delete(key);
    };
  }

  /** The action holding `key`, if any. */
  holder(key: string): string | undefined {
    return this.running.get(key);
  }
}

export const instanceKey = (id: number): string => `instance:${id}`;
