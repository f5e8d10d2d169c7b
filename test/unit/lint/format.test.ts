// The format rule of `npm run lint` (Prettier with .prettierrc.json) fails on code out of format
// and passes on the same code formatted, and its ignore file keeps Markdown and JSON to their own hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../repoRoot';

const root = repoRoot();
const config = JSON.parse(readFileSync(join(root, '.prettierrc.json'), 'utf8')) as Record<string, unknown>;

test('the format check fails on code out of format and passes once it is formatted', async () => {
  const prettier = (await import('prettier')) as typeof import('prettier');
  const messy = 'const  a = {b:1,\n  c:"two"}\nexport default a\n';
  const options = { ...config, parser: 'typescript', filepath: join(root, 'src/x.ts') };
  assert.equal(await prettier.check(messy, options), false);
  const formatted = await prettier.format(messy, options);
  assert.equal(formatted, "const a = { b: 1, c: 'two' };\nexport default a;\n");
  assert.equal(await prettier.check(formatted, options), true);
});

test('the ignore file leaves Markdown and JSON alone and the build output out', async () => {
  const prettier = (await import('prettier')) as typeof import('prettier');
  const ignorePath = join(root, '.prettierignore');
  for (const f of ['README.md', 'package.json', 'dist/extension.js', 'out/unit/x.js']) {
    assert.equal((await prettier.getFileInfo(join(root, f), { ignorePath })).ignored, true, `${f} is not ignored`);
  }
  assert.equal((await prettier.getFileInfo(join(root, 'src/extension.ts'), { ignorePath })).ignored, false);
});
