// A fake clock (the poller's Timers): timers fire only when advance() passes them.
import assert from 'node:assert/strict';
import type { Timers } from '../../src/core/poller';

export class FakeTimers implements Timers {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  get scheduled(): number {
    return this.pending.size;
  }
  /** The delay of the single pending timer (undefined when none). */
  nextDelay(): number | undefined {
    const next = [...this.pending.values()].sort((a, b) => a.at - b.at)[0];
    return next ? next.at - this.t : undefined;
  }
  /** Moves the clock, firing due timers in order and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const due = [...this.pending.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = end;
    await flush();
  }
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Starts watching `call`: whether it has settled (either way) by the time it is asked. */
export function track(call: Promise<unknown>): { settled: () => boolean } {
  let done = false;
  call.then(
    () => (done = true),
    () => (done = true),
  );
  return { settled: () => done };
}

/**
 * `call`, which must settle without the clock moving: fails instead of waiting for a timer that
 * never fires, or for a promise a planted bug never settles (Node 23 and later no longer end a
 * test whose promise can never settle).
 */
export async function atOnce<T>(call: Promise<T>, what = 'the call'): Promise<T> {
  const t = track(call);
  await flush();
  assert.ok(t.settled(), `${what} waited for the clock`);
  return call;
}
