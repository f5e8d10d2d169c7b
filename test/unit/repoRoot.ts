import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository folder (the first folder above the running test with a package.json). */
export function repoRoot(): string {
  let d = __dirname;
  while (!existsSync(join(d, 'package.json'))) {
    const up = dirname(d);
    if (up === d) throw new Error('package.json not found above the test');
    d = up;
  }
  return d;
}
