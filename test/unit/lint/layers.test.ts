// The lint tier fails on a forbidden import: the ESLint config's boundary rules on fixture
// sources, and the whole-graph check (import() across a boundary, folder cycles) on a fixture tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { checkLayers, folderCycles, importEdges } from '../../../tools/lint/layers.mjs';
import { repoRoot } from '../repoRoot';
import { inFixtureTree } from '../helpers';


const root = repoRoot();
const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'tools/lint/eslint.config.mjs') });

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(root, file) });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('eslint: a view importing a command fails', async () => {
  const msgs = await restricted('src/views/fixtureView.ts', "import { commands } from '../commands';\nexport const n = Object.keys(commands).length;\n");
  assert.equal(msgs.length, 1);
  assert.match(msgs[0]!, /src\/views\/ must not import src\/commands\//);
});

test('eslint: vscode under src/model (and api, sim, templates, ssh, account) fails', async () => {
  for (const folder of ['model', 'api', 'sim', 'templates', 'ssh', 'account']) {
    const msgs = await restricted(`src/${folder}/fixture.ts`, "import * as vscode from 'vscode';\nexport const v = vscode;\n");
    assert.equal(msgs.length, 1, `vscode in src/${folder} was not reported`);
    assert.match(msgs[0]!, /only extension\.ts, host\/, views\/ and commands\/ import vscode/);
  }
});

test('eslint: api and sim import nothing of the rest; model does not reach up', async () => {
  assert.equal((await restricted('src/api/fixture.ts', "import { x } from '../model/costs';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/sim/fixture.ts', "import type { Instance } from '../api/types';\nexport type I = Instance;\n")).length, 1);
  assert.equal((await restricted('src/model/fixture.ts', "import { x } from '../templates/schema';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/host/fixture.ts', "import { x } from '../views/index';\nexport const y = x;\n")).length, 1);
});

test('eslint: registering a command anywhere but the command table fails', async () => {
  const code = "import * as vscode from 'vscode';\nexport const d = vscode.commands.registerCommand('gpuRental.x', () => undefined);\n";
  for (const file of ['src/views/fixture.ts', 'src/commands/ssh/fixture.ts', 'src/host/fixture.ts']) {
    const [r] = await eslint.lintText(code, { filePath: join(root, file) });
    assert.deepEqual(r?.messages.map((m) => m.ruleId), ['no-restricted-syntax'], file);
  }
  const [table] = await eslint.lintText(code, { filePath: join(root, 'src/commands/index.ts') });
  assert.deepEqual(table?.messages.filter((m) => m.ruleId === 'no-restricted-syntax'), []);
});

test('eslint: allowed imports pass', async () => {
  assert.deepEqual(await restricted('src/commands/fixture.ts', "import * as vscode from 'vscode';\nimport { x } from '../views/errorItem';\nimport { y } from '../host/services';\nexport const z = [vscode, x, y];\n"), []);
  assert.deepEqual(await restricted('src/views/fixture.ts', "import { x } from '../model/costs';\nimport { y } from './errorItem';\nexport const z = [x, y];\n"), []);
});

/** Runs `fn` with the src folder of a temporary fixture tree holding `files` (paths below src; removed afterwards). */
const inSrcTree = <T>(files: Record<string, string>, fn: (src: string) => T | Promise<T>) =>
  inFixtureTree('gpu-rental-layers-', Object.fromEntries(Object.entries(files).map(([rel, text]) => [join('src', rel), text])), (dir) => fn(join(dir, 'src')));

test('layers: a folder cycle is found, with the imports that make it', async () => {
  await inSrcTree({
    'model/a.ts': "import type { B } from '../ssh/b';\nexport type A = B;\n",
    'ssh/b.ts': "export type B = number;\nexport const lazy = () => import('../model/a');\n",
  }, (src) => {
    assert.deepEqual(folderCycles(importEdges(src)), [['model', 'ssh']]);
    const problems = checkLayers(src);
    assert.ok(problems.some((p) => /import cycle between folders src\/model, src\/ssh/.test(p) && p.includes("../ssh/b") && p.includes("../model/a")), problems.join('\n'));
  });
});

test('layers: import() of a command from a view and vscode under model are found', async () => {
  await inSrcTree({
    'views/v.ts': "export async function f() {\n  return (await import('../commands/index')).commands;\n}\n",
    'commands/index.ts': "import * as vscode from 'vscode';\nexport const commands = { vscode };\n",
    'model/m.ts': "import type * as vscode from 'vscode';\nexport type U = vscode.Uri;\n",
  }, (src) => {
    const problems = checkLayers(src);
    assert.ok(problems.some((p) => p.startsWith('src/views/v.ts: imports ../commands/index (src/commands)')), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('src/model/m.ts: imports vscode')), problems.join('\n'));
    assert.equal(problems.length, 2, problems.join('\n'));
  });
});

test('layers: a new src/ folder must be placed in the layer rules first', async () => {
  await inSrcTree({ 'newFeature/x.ts': "import { y } from '../model/y';\nexport const x = y;\n", 'model/y.ts': 'export const y = 1;\n' }, (src) => {
    assert.deepEqual(checkLayers(src), ['src/newFeature is not in tools/lint/layers.mjs: add it to FOLDERS and ALLOWED (which folders it may import, and who may import it)']);
  });
});

test('layers: this repository has no layer problem and no folder cycle', () => {
  assert.deepEqual(checkLayers(join(root, 'src')), []);
});
