// The bundle split is read from the import() sites, and a module with state is never copied
// into two bundles: on fixture trees, and on this repository's command table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { bundleName, findLazyModules, statefulCopies } from '../../../scripts/bundles.mjs';
import { repoRoot } from '../repoRoot';
import { inFixtureTree } from '../../kit/temp';

/** Runs `fn` in a temporary fixture tree of `files` (removed afterwards). */
const inTree = <T>(files: Record<string, string>, fn: (dir: string) => T | Promise<T>) => inFixtureTree('gpu-rental-bundles-', files, fn);

test('every import() of a src/ module is a bundle, named by its file (or folder for index.ts)', async () => {
  await inTree(
    {
      'src/main.ts':
        "export const a = () => import('./feature/heavy');\nexport const b = () => import('./sim');\nimport { c } from './plain';\nexport { c };\n",
      'src/feature/heavy.ts': "export const h = () => import('../deeper/late');\n",
      'src/deeper/late.ts': 'export const l = 1;\n',
      'src/sim/index.ts': 'export const s = 1;\n',
      'src/plain.ts': 'export const c = 1;\n',
    },
    async (dir) => {
      const found = await findLazyModules(dir, 'src/main.ts');
      assert.deepEqual(Object.fromEntries(found), {
        heavy: join(dir, 'src/feature/heavy.ts'),
        sim: join(dir, 'src/sim/index.ts'),
        late: join(dir, 'src/deeper/late.ts'),
      });
      assert.equal(bundleName(dir, join(dir, 'src/a/b/index.ts')), 'b');
    },
  );
});

test('two import() targets with one file name fail the build with both paths', async () => {
  await inTree(
    {
      'src/main.ts': "export const a = () => import('./one/x');\nexport const b = () => import('./two/x');\n",
      'src/one/x.ts': 'export const x = 1;\n',
      'src/two/x.ts': 'export const x = 2;\n',
    },
    async (dir) => {
      await assert.rejects(findLazyModules(dir, 'src/main.ts'), /src\/one\/x\.ts and src\/two\/x\.ts are both import\(\)ed and would both be dist\/x\.js/);
    },
  );
});

test('a module with state in two bundles is reported; a stateless one is not', async () => {
  const out = (inputs: string[]) => ({ inputs: Object.fromEntries(inputs.map((i) => [i, { bytesInOutput: 10 }])) });
  await inTree(
    {
      'src/state.ts': 'let asking: Promise<void> | undefined;\nexport const ask = () => (asking ??= Promise.resolve());\n',
      'src/cache.ts': 'export const seen = new Set<number>();\n',
      'src/memo.ts': 'let schema: object | undefined; // per-bundle cache\nexport const get = () => (schema ??= {});\n',
      'src/pure.ts':
        "const SKIP = new Set(['node_modules', '.git']);\nexport const add = (a: number, b: number) => a + b;\nexport const skip = (n: string) => SKIP.has(n);\n",
    },
    (dir) => {
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
    },
  );
});

test("the command table's loaders are what the build splits off", async () => {
  const root = repoRoot();
  const found = await findLazyModules(root, 'src/extension.ts', { external: ['vscode', 'cpu-features', '*.node'], loader: { '.sh': 'text' } });
  for (const [name, file] of [
    ['createFromTemplate', 'src/create/vscode/commands/createFromTemplate.ts'],
    ['connect', 'src/ssh/vscode/commands/connect.ts'],
    ['tfa', 'src/account/vscode/commands/tfa.ts'],
    ['newTemplate', 'src/create/vscode/commands/newTemplate.ts'],
    ['transport', 'src/api/transport.ts'],
    ['schemas', 'src/api/schemas.ts'],
  ]) {
    assert.equal(found.get(name!), join(root, file!), `dist/${name}.js is not split off`);
  }
});
