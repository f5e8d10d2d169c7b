// Deterministic PRNG (mulberry32) so a seed reproduces the same catalogue everywhere.
export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng() * (hi - lo);
}

/** A stable integer in [lo, hi) derived from numbers, for ports that must not change between reads. */
export function stableInt(lo: number, hi: number, ...parts: number[]): number {
  let h = 2166136261;
  for (const p of parts) {
    h ^= p >>> 0;
    h = Math.imul(h, 16777619) >>> 0;
    h ^= h >>> 13;
  }
  // `h ^= h >>> 13` leaves a signed 32-bit value: without >>> 0 some results fell below lo
  // (e.g. negative SSH ports).
  return lo + ((h >>> 0) % (hi - lo));
}
