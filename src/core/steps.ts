// A multi-step prompt as a list of steps over one value: each step returns the new value,
// BACK (go to the previous step) or undefined (cancelled). Back keeps every answer given so
// far: the previous step opens with its own answer filled in (it used to get the value it had
// seen before answering, so "24", Back, showed an empty box).
export const BACK = Symbol('back');
export type Back = typeof BACK;
export type Step<T> = (value: T, step: number, total: number) => Promise<T | Back | undefined>;

export async function runSteps<T>(steps: ReadonlyArray<Step<T>>, initial: T): Promise<T | undefined> {
  let value = initial;
  let i = 0;
  while (i < steps.length) {
    const step = steps[i];
    if (!step) break;
    const r = await step(value, i + 1, steps.length);
    if (r === undefined) return undefined;
    if (r === BACK) {
      if (i > 0) i--;
      continue;
    }
    value = r;
    i++;
  }
  return value;
}
