// A multi-step prompt as a list of steps over one value: each step returns the new value,
// BACK (go to the previous step with the value it saw) or undefined (cancelled).
export const BACK = Symbol('back');
export type Back = typeof BACK;
export type Step<T> = (value: T, step: number, total: number) => Promise<T | Back | undefined>;

export async function runSteps<T>(steps: ReadonlyArray<Step<T>>, initial: T): Promise<T | undefined> {
  const history: T[] = [];
  let value = initial;
  let i = 0;
  while (i < steps.length) {
    const step = steps[i];
    if (!step) break;
    const r = await step(value, i + 1, steps.length);
    if (r === undefined) return undefined;
    if (r === BACK) {
      if (i > 0) {
        i--;
        value = history.pop() ?? value;
      }
      continue;
    }
    history.push(value);
    value = r;
    i++;
  }
  return value;
}
