// `npm run lint` (a tier of `npm test`): Prettier's check of the code's format (`npm run format`
// writes it), ESLint with typescript-eslint, its typed rules and the
// import-boundary rules (tools/lint/eslint.config.mjs), the whole-graph layer check of
// tools/lint/layers.mjs (import() across a boundary, cycles between src/ folders, two files of
// src/ with one base name) and the unused-export check of tools/lint/unusedExports.mjs, while
// ESLint runs. Exits 1 on any problem.
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers } from '../tools/lint/layers.mjs';
import { unusedExports } from '../tools/lint/unusedExports.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const eslint = spawn(
  process.execPath,
  [join(root, 'node_modules/eslint/bin/eslint.js'), '--config', 'tools/lint/eslint.config.mjs', '--max-warnings', '0', 'src', 'test', 'bench'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
const eslintDone = new Promise((resolve) => eslint.on('close', resolve));
// The format: Prettier (.prettierrc.json, .prettierignore) lists every code file that differs.
const prettier = spawn(process.execPath, [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.'], {
  cwd: root,
  stdio: 'inherit',
});
const prettierDone = new Promise((resolve) => prettier.on('close', resolve));
const problems = checkLayers(join(root, 'src'));
for (const p of problems) console.error(`layers: ${p}`);
const unused = unusedExports(root, {
  entries: ['src/extension.ts'],
  // scripts/gen-template-schema.mjs writes schemas/template.schema.json from it.
  outside: { 'src/create/templateSchema.ts': ['templateJsonSchema'] },
});
for (const p of unused) console.error(`exports: ${p}`);
const formatted = (await prettierDone) === 0;
if (!formatted) console.error("format: the files above differ from Prettier's format: run `npm run format`");
const ok = (await eslintDone) === 0 && formatted && problems.length === 0 && unused.length === 0;
console.log(ok ? 'lint passed (Prettier format, eslint with typed rules, layer rules, no folder cycles, unique file names, no unused exports)' : 'lint FAILED');
process.exit(ok ? 0 : 1);
