import { existsSync, readFileSync } from 'node:fs';
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

/**
 * package.json as VS Code shows it: a string value "%key%" is replaced by its text in
 * package.nls.json (the manifest's translatable strings), so tests read titles, not keys.
 */
export function manifest<T = unknown>(): T {
  const root = repoRoot();
  const nlsPath = join(root, 'package.nls.json');
  const nls = existsSync(nlsPath) ? (JSON.parse(readFileSync(nlsPath, 'utf8')) as Record<string, string>) : {};
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'), (_k, v: unknown) => {
    const key = typeof v === 'string' ? /^%([^%]+)%$/.exec(v)?.[1] : undefined;
    return key !== undefined && key in nls ? nls[key] : v;
  }) as T;
}
