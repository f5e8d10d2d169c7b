// The bundle split is read from the import() sites, and a module with state is never copied
// into two bundles: on fixture trees, and on this repository's command table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleName, findLazyModules, statefulCopies } from '../../../scripts/bundles.mjs';
import { repoRoot } from '../repoRoot';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-bundles-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

test('every import() of a src/ module is a bundle, named by its file (or folder for index.ts)', async () => {
  const dir = tree({
    'src/main.ts': "export const a = () => import('./feature/heavy');\nexport const b = () => import('./sim');\nimport { c } from './plain';\nexport { c };\n",
    'src/feature/heavy.ts': "export const h = () => import('../deeper/late');\n",
    'src/deeper/late.ts': 'export const l = 1;\n',
    'src/sim/index.ts': 'export const s = 1;\n',
    'src/plain.ts': 'export const c = 1;\n',
  });
  try {
    const found = await findLazyModules(dir, 'src/main.ts');
    assert.deepEqual(Object.fromEntries(found), { heavy: join(dir, 'src/feature/heavy.ts'), sim: join(dir, 'src/sim/index.ts'), late: join(dir, 'src/deeper/late.ts') });
    assert.equal(bundleName(dir, join(dir, 'src/a/b/index.ts')), 'b');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two import() targets with one file name fail the build with both paths', async () => {
  const dir = tree({
    'src/main.ts': "export const a = () => import('./one/x');\nexport const b = () => import('./two/x');\n",
    'src/one/x.ts': 'export const x = 1;\n',
    'src/two/x.ts': 'export const x = 2;\n',
  });
  try {
    await assert.rejects(findLazyModules(dir, 'src/main.ts'), /src\/one\/x\.ts and src\/two\/x\.ts are both import\(\)ed and would both be dist\/x\.js/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a module with state in two bundles is reported; a stateless one is not', () => {
  const dir = tree({
    'src/state.ts': 'let asking: Promise<void> | undefined;\nexport const ask = () => (asking ??= Promise.resolve());\n',
    'src/cache.ts': 'export const seen = new Set<number>();\n',
    'src/memo.ts': 'let schema: object | undefined; // per-bundle cache\nexport const get = () => (schema ??= {});\n',
    'src/pure.ts': "const SKIP = new Set(['node_modules', '.git']);\nexport const add = (a: number, b: number) => a + b;\nexport const skip = (n: string) => SKIP.has(n);\n",
  });
  const out = (inputs: string[]) => ({ inputs: Object.fromEntries(inputs.map((i) => [i, { bytesInOutput: 10 }])) });
  try {
    const copies = statefulCopies(dir, [
      { outputs: { 'dist/extension.js': out(['src/state.ts', 'src/cache.ts', 'src/pure.ts']), 'dist/extension.js.map': out(['src/state.ts']) } },
      { outputs: { 'dist/connect.js': out(['src/state.ts', 'src/pure.ts', 'src/memo.ts']) } },
      { outputs: { 'dist/createFromTemplate.js': out(['src/memo.ts']) } },
      { outputs: { 'dist/tfa.js': out(['src/cache.ts']) } },
    ]);
    assert.deepEqual(copies, [
      ['src/state.ts', ['dist/extension.js', 'dist/connect.js']],
      ['src/cache.ts', ['dist/extension.js', 'dist/tfa.js']],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the command table's loaders are what the build splits off", async () => {
  const root = repoRoot();
  const found = await findLazyModules(root, 'src/extension.ts', { external: ['vscode', 'cpu-features', '*.node'], loader: { '.sh': 'text' } });
  for (const [name, file] of [
    ['createFromTemplate', 'src/commands/templates/createFromTemplate.ts'],
    ['connect', 'src/commands/ssh/connect.ts'],
    ['tfa', 'src/commands/account/tfa.ts'],
    ['newTemplate', 'src/commands/templates/newTemplate.ts'],
    ['transport', 'src/api/transport.ts'],
    ['schemas', 'src/api/schemas.ts'],
  ]) {
    assert.equal(found.get(name!), join(root, file!), `dist/${name}.js is not split off`);
  }
});
