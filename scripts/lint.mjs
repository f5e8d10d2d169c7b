// `npm run lint` (a tier of `npm test`): ESLint with typescript-eslint and the import-boundary
// rules (tools/lint/eslint.config.mjs), then the whole-graph layer check of tools/lint/layers.mjs
// (import() across a boundary, cycles between src/ folders). Exits 1 on any problem.
import { spawnSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers } from '../tools/lint/layers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const eslint = spawnSync(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '--config', 'tools/lint/eslint.config.mjs', '--max-warnings', '0', 'src', 'test', 'bench'], {
  cwd: root,
  stdio: 'inherit',
});
const problems = checkLayers(join(root, 'src'));
for (const p of problems) console.error(`layers: ${p}`);
const ok = eslint.status === 0 && problems.length === 0;
console.log(ok ? 'lint passed (eslint, layer rules, no folder cycles)' : 'lint FAILED');
process.exit(ok ? 0 : 1);
