// The unused-export check of the lint tier fails on an export nobody uses and on one only tests
// use unless it is named for tests; uses through types, namespaces, import() and lazy-loaded
// names count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inFixtureTree } from '../../kit/temp';
import { repoRoot } from '../repoRoot';

// Loaded as the ES module it is (it finds the linter's TypeScript through import.meta.url).
const checker = pathToFileURL(join(repoRoot(), 'tools/lint/unusedExports.mjs')).href;
const load = async () => ((await import(checker)) as typeof import('../../../tools/lint/unusedExports.mjs')).unusedExports;

const tsconfig = JSON.stringify({
  compilerOptions: { strict: true, module: 'preserve', moduleResolution: 'bundler', noEmit: true, types: [] },
  include: ['src', 'test'],
});

test('unused exports: dead and test-only exports fail; used, own-file, ForTests and @internal test pass', async () => {
  const unusedExports = await load();
  await inFixtureTree(
    'gpu-rental-exports-',
    {
      'tsconfig.json': tsconfig,
      'src/main.ts': [
        "import type { Shape } from './lib';",
        "import * as lib from './lib';",
        'export function activate(s: Shape): number {',
        "  return lib.area(s) + lazy(() => import('./lazy'), 'handler');",
        '}',
        'function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): number {',
        '  void load;',
        '  return String(name).length;',
        '}',
        '',
      ].join('\n'),
      'src/lazy.ts': 'export function handler(): void {}\nexport function otherHandler(): void {}\n',
      'src/lib.ts': [
        'export interface Shape { w: number; h: number }',
        'export function area(s: Shape): number {',
        '  return s.w * s.h * scale;',
        '}',
        'export const scale = 1;',
        'export function dead(): number {',
        '  return 0;',
        '}',
        'export function onlyTested(): number {',
        '  return 1;',
        '}',
        'export function resetForTests(): void {}',
        '/** Exported so the tests can read it. */',
        '/** @internal test */',
        'export const LIMIT = 3;',
        '',
      ].join('\n'),
      'test/lib.test.ts': "import { onlyTested, resetForTests, LIMIT } from '../src/lib';\nexport const t = [onlyTested, resetForTests, LIMIT];\n",
    },
    (dir) => {
      const problems = unusedExports(dir, { entries: ['src/main.ts'] });
      assert.deepEqual(problems, [
        'src/lazy.ts:2: export otherHandler is used by nobody: delete it',
        'src/lib.ts:6: export dead is used by nobody: delete it',
        'src/lib.ts:9: export onlyTested is used only by tests: name it …ForTests or mark it /** @internal test */ (or use it, or stop exporting it)',
      ]);
      assert.deepEqual(
        unusedExports(dir, { entries: ['src/main.ts'], outside: { 'src/lazy.ts': ['otherHandler'] } }).length,
        2,
        'a name used by a script outside the program passes',
      );
    },
  );
});
