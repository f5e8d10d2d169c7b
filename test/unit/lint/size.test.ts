// The lint tier fails on a file over 500 lines or a function over 120 lines anywhere in src/
// (the simulator included), counting blank lines and comments, and passes at the limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fixtureLint as eslint, root } from './fixtureLint';

async function sizeProblems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(root, file) });
  assert.deepEqual(
    r?.messages.filter((m) => m.fatal),
    [],
    'the fixture parses',
  );
  return (r?.messages ?? []).filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'max-lines-per-function').map((m) => `${m.ruleId}: ${m.message}`);
}

/** A file of `lines` lines: statements, blank lines and comments in turn (all of them count). */
function fileOf(lines: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < lines; i++) out.push(i % 3 === 0 ? `export const v${i} = ${i};` : i % 3 === 1 ? '' : `// comment ${i}`);
  return out.join('\n') + '\n';
}

/** A function spanning `lines` lines from its `function` line to its closing brace, padded with blanks and comments. */
function functionOf(lines: number): string {
  const body: string[] = [];
  for (let i = 0; body.length < lines - 3; i++) body.push(i % 2 === 0 ? '' : `  // step ${i}`);
  return ['export function long(): number {', ...body, '  return 1;', '}', ''].join('\n');
}

test('eslint: a file over 500 lines in src/ fails, blank lines and comments included; 500 lines pass', async () => {
  for (const file of ['src/instances/fixture.ts', 'src/sim/fixture.ts', 'src/api/fixture.ts', 'src/app/fixture.ts']) {
    const over = await sizeProblems(file, fileOf(501));
    assert.deepEqual(over, ['max-lines: File has too many lines (501). Maximum allowed is 500.'], file);
    assert.deepEqual(await sizeProblems(file, fileOf(500)), [], file);
  }
});

test('eslint: a function over 120 lines in src/ fails, blank lines and comments included; 120 lines pass', async () => {
  for (const file of ['src/offers/fixture.ts', 'src/sim/fixture.ts', 'src/ssh/vscode/commands/fixture.ts']) {
    const over = await sizeProblems(file, functionOf(121));
    assert.deepEqual(over, ["max-lines-per-function: Function 'long' has too many lines (121). Maximum allowed is 120."], file);
    assert.deepEqual(await sizeProblems(file, functionOf(120)), [], file);
  }
  // An immediately invoked function counts too.
  const iife = `(() => {\n${'  // step\n'.repeat(119)}})();\n`;
  assert.equal((await sizeProblems('src/core/fixture.ts', iife)).length, 1);
});
