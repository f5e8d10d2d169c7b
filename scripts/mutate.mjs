// `npm run mutate`: mutation testing of the money- and safety-critical core with StrykerJS
// (configuration and reasons: tools/mutate/stryker.config.mjs). Its toolchain lives in
// tools/mutate (installed on first use) so that `npm ci` and `npm test` never need it.
// Extra arguments go to Stryker (e.g. `npm run mutate -- --mutate src/api/redact.ts`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools/mutate');
const bin = join(tools, 'node_modules/@stryker-mutator/core/bin/stryker.js');
if (!existsSync(bin)) {
  console.log('mutate: installing the mutation-testing toolchain into tools/mutate (once)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: tools, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const r = spawnSync(process.execPath, [bin, 'run', 'tools/mutate/stryker.config.mjs', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
