// The lint tier fails on a forbidden import: the ESLint config's boundary rules on fixture
// sources, and the whole-graph check (import() across a boundary, folder cycles) on a fixture tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { checkLayers, folderCycles, importEdges, sameBaseNames } from '../../../tools/lint/layers.mjs';
import { inFixtureTree } from '../../kit/temp';
import { fixtureLint as eslint, lintConfig as config, root } from './fixtureLint';

const typed = new ESLint({ cwd: root, overrideConfigFile: config });

/** The typed rules' findings on `code`, linted as if it were the (existing) file src/core/steps.ts. */
async function promiseRules(code: string): Promise<string[]> {
  const [r] = await typed.lintText(code, { filePath: join(root, 'src/core/steps.ts') });
  assert.deepEqual(
    r?.messages.filter((m) => m.fatal),
    [],
    'the fixture parses with types',
  );
  return (r?.messages ?? []).filter((m) => m.ruleId?.includes('promises')).map((m) => `${m.line}:${m.ruleId}`);
}

test('eslint (typed): a promise left floating or voided fails; awaited, background() or .catch() passes', async () => {
  const code = [
    "import * as vscode from 'vscode';",
    "import type { Logger } from '../api/types';",
    "import { background } from './background';",
    'declare const log: Logger;',
    'async function work(): Promise<number> {',
    '  return 1;',
    '}',
    'export async function f(): Promise<void> {',
    '  void work();', // 9: void is not a rejection handler
    '  work();', // 10
    "  void vscode.commands.executeCommand('x');", // 11: a Thenable that may reject
    "  background(work(), log, 'working');",
    '  work().catch(() => undefined);',
    '  await work();',
    "  vscode.window.showInformationMessage('notices never reject');",
    "  if (work()) log.info('x');", // 16: a promise is always truthy
    '  [1].forEach(async () => {', // 17: forEach drops the promise
    '    await work();',
    '  });',
    '}',
    '',
  ].join('\n');
  assert.deepEqual(await promiseRules(code), [
    '9:@typescript-eslint/no-floating-promises',
    '10:@typescript-eslint/no-floating-promises',
    '11:@typescript-eslint/no-floating-promises',
    '16:@typescript-eslint/no-misused-promises',
    '17:@typescript-eslint/no-misused-promises',
  ]);
});

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(root, file) });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('eslint: a view importing a command fails, in its own feature or another', async () => {
  for (const [file, spec] of [
    ['src/instances/vscode/fixtureView.ts', './commands/destroyInstance'],
    ['src/create/vscode/fixtureView.ts', '../../ssh/vscode/commands/connect'],
  ]) {
    const msgs = await restricted(file!, `import { x } from '${spec}';\nexport const n = x;\n`);
    assert.equal(msgs.length, 1, file);
    assert.match(msgs[0]!, /Views render and never import a command/);
  }
});

test('eslint: a command file importing another command file fails, in its own folder or another feature', async () => {
  for (const spec of ['./stopInstance', '../../../ssh/vscode/commands/connect']) {
    const msgs = await restricted('src/instances/vscode/commands/fixture.ts', `import { x } from '${spec}';\nexport const n = x;\n`);
    assert.equal(msgs.length, 1, spec);
    assert.match(msgs[0]!, /A command file is an entry point, imported only by src\/app\/commandTable\.ts/);
  }
  assert.deepEqual(await restricted('src/app/commandTable.ts', "import { x } from '../ssh/vscode/commands/connect';\nexport const n = x;\n"), []);
});

test('eslint: vscode in a core (any feature, api, sim, core) fails', async () => {
  for (const folder of ['core', 'api', 'sim', 'create', 'ssh', 'account', 'instances', 'guard']) {
    const msgs = await restricted(`src/${folder}/fixture.ts`, "import * as vscode from 'vscode';\nexport const v = vscode;\n");
    assert.equal(msgs.length, 1, `vscode in src/${folder} was not reported`);
    assert.match(msgs[0]!, /is plain TypeScript: only src\/<feature>\/vscode\/, src\/app\/ and src\/extension\.ts import vscode/);
  }
});

test('eslint: cores point down; a core never imports a VS Code part; VS Code parts use only lower features', async () => {
  assert.equal((await restricted('src/api/fixture.ts', "import { x } from '../costs/costs';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/sim/fixture.ts', "import type { Instance } from '../api/types';\nexport type I = Instance;\n")).length, 1);
  assert.equal((await restricted('src/ssh/fixture.ts', "import { x } from '../create/templateSchema';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/ssh/fixture.ts', "import { x } from './vscode/sshHost';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/ssh/vscode/fixture.ts', "import { x } from '../../create/vscode/templateFiles';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/guard/vscode/fixture.ts', "import { x } from '../../app/createServices';\nexport const y = x;\n")).length, 1);
  // A VS Code part reaching up into a feature's core (the hole of #38), and src/core/vscode/ naming a feature.
  assert.equal((await restricted('src/ssh/vscode/fixture.ts', "import { x } from '../../instances/instanceViewModel';\nexport const y = x;\n")).length, 1);
  assert.equal((await restricted('src/core/vscode/fixture.ts', "import type { X } from '../../guard/monitor';\nexport type Y = X;\n")).length, 1);
});

test('eslint: registering a command anywhere but the command table fails', async () => {
  const code = "import * as vscode from 'vscode';\nexport const d = vscode.commands.registerCommand('gpuRental.x', () => undefined);\n";
  for (const file of ['src/instances/vscode/fixture.ts', 'src/ssh/vscode/commands/fixture.ts', 'src/app/fixture.ts']) {
    const [r] = await eslint.lintText(code, { filePath: join(root, file) });
    assert.deepEqual(
      r?.messages.map((m) => m.ruleId),
      ['no-restricted-syntax'],
      file,
    );
  }
  const [table] = await eslint.lintText(code, { filePath: join(root, 'src/app/commandTable.ts') });
  assert.deepEqual(
    table?.messages.filter((m) => m.ruleId === 'no-restricted-syntax'),
    [],
  );
});

test('eslint: allowed imports pass', async () => {
  assert.deepEqual(
    await restricted(
      'src/create/vscode/commands/fixture.ts',
      "import * as vscode from 'vscode';\nimport { a } from '../../../ssh/vscode/sshKeyCheck';\nimport { b } from '../../../core/vscode/errorItem';\nimport { c } from '../../../instances/instanceViewModel';\nimport { d } from '../templateFiles';\nexport const z = [vscode, a, b, c, d];\n",
    ),
    [],
  );
  assert.deepEqual(
    await restricted(
      'src/costs/vscode/fixture.ts',
      "import { x } from '../../core/instanceWords';\nimport { y } from '../../core/vscode/errorItem';\nimport { w } from '../costs';\nexport const z = [x, y, w];\n",
    ),
    [],
  );
  assert.deepEqual(
    await restricted('src/instances/fixture.ts', "import { x } from '../costs/costs';\nimport { y } from '../ssh/address';\nexport const z = [x, y];\n"),
    [],
  );
});

/** Runs `fn` with the src folder of a temporary fixture tree holding `files` (paths below src; removed afterwards). */
const inSrcTree = <T>(files: Record<string, string>, fn: (src: string) => T | Promise<T>) =>
  inFixtureTree('gpu-rental-layers-', Object.fromEntries(Object.entries(files).map(([rel, text]) => [join('src', rel), text])), (dir) => fn(join(dir, 'src')));

test('layers: a cycle between two cores is found, with the imports that make it', async () => {
  await inSrcTree(
    {
      'costs/a.ts': "import type { B } from '../ssh/b';\nexport type A = B;\n",
      'ssh/b.ts': "export type B = number;\nexport const lazy = () => import('../costs/a');\n",
    },
    (src) => {
      assert.deepEqual(folderCycles(importEdges(src)), [['costs', 'ssh']]);
      const problems = checkLayers(src);
      assert.ok(
        problems.some((p) => /import cycle between folders src\/costs, src\/ssh/.test(p) && p.includes('../ssh/b') && p.includes('../costs/a')),
        problems.join('\n'),
      );
    },
  );
});

test('layers: a cycle between two VS Code parts is found', async () => {
  await inSrcTree(
    {
      'ssh/vscode/a.ts': "export const lazy = () => import('../../instances/vscode/b');\n",
      'instances/vscode/b.ts': "import { lazy } from '../../ssh/vscode/a';\nexport const b = lazy;\n",
    },
    (src) => {
      assert.deepEqual(folderCycles(importEdges(src)), [['instances/vscode', 'ssh/vscode']]);
      assert.ok(
        checkLayers(src).some((p) => p.startsWith('src/ssh/vscode/a.ts: imports ../../instances/vscode/b (src/instances/vscode); the layers point one way')),
      );
    },
  );
});

test('layers: a VS Code part importing the core of a feature above it fails, and src/core/vscode/ imports no feature', async () => {
  await inSrcTree(
    {
      'instances/instanceViewModel.ts': 'export const instanceName = 1;\n',
      'ssh/vscode/copy.ts': "import { instanceName } from '../../instances/instanceViewModel';\nexport const copy = instanceName;\n",
      'guard/monitor.ts': 'export type GuardMonitor = number;\n',
      'core/vscode/services.ts': "import type { GuardMonitor } from '../../guard/monitor';\nexport type Services = GuardMonitor;\n",
      'core/instanceWords.ts': 'export const name = 1;\n',
      'create/vscode/rent.ts':
        "import { instanceName } from '../../instances/instanceViewModel';\nimport { name } from '../../core/instanceWords';\nexport const rent = [instanceName, name];\n",
    },
    (src) => {
      const problems = checkLayers(src);
      assert.ok(
        problems.some((p) => p.startsWith('src/ssh/vscode/copy.ts: imports ../../instances/instanceViewModel (src/instances); the layers point one way')),
        problems.join('\n'),
      );
      assert.ok(
        problems.some((p) => p.startsWith('src/core/vscode/services.ts: imports ../../guard/monitor (src/guard); the layers point one way')),
        problems.join('\n'),
      );
      assert.equal(problems.length, 2, problems.join('\n'));
    },
  );
});

test('layers: import() of a command from a view, vscode in a core and a core reaching its VS Code part are found', async () => {
  await inSrcTree(
    {
      'instances/vscode/v.ts': "export async function f() {\n  return (await import('./commands/c')).c;\n}\n",
      'instances/vscode/commands/c.ts': "import * as vscode from 'vscode';\nexport const c = { vscode };\n",
      'costs/m.ts': "import type * as vscode from 'vscode';\nexport type U = vscode.Uri;\n",
      'guard/g.ts': "import { w } from './vscode/w';\nexport const g = w;\n",
      'guard/vscode/w.ts': 'export const w = 1;\n',
    },
    (src) => {
      const problems = checkLayers(src);
      assert.ok(
        problems.some((p) => p.startsWith('src/instances/vscode/v.ts: imports ./commands/c (src/instances/vscode); a command file is an entry point')),
        problems.join('\n'),
      );
      assert.ok(
        problems.some((p) => p.startsWith('src/costs/m.ts: imports vscode')),
        problems.join('\n'),
      );
      assert.ok(
        problems.some((p) => p.startsWith('src/guard/g.ts: imports ./vscode/w (src/guard/vscode); a core (src/guard/) never imports a VS Code part')),
        problems.join('\n'),
      );
      assert.equal(problems.length, 3, problems.join('\n'));
    },
  );
});

test('layers: a command file imported (or import()ed) by anything but the command table is found', async () => {
  await inSrcTree(
    {
      'ssh/vscode/commands/connect.ts': 'export const connect = 1;\n',
      'ssh/vscode/commands/copy.ts': "export const copy = async () => (await import('./connect')).connect;\n",
      'instances/vscode/commands/start.ts': "import { connect } from '../../../ssh/vscode/commands/connect';\nexport const start = connect;\n",
      'app/watchers.ts': "import { connect } from '../ssh/vscode/commands/connect';\nexport const w = connect;\n",
      'app/commandTable.ts':
        "import { connect } from '../ssh/vscode/commands/connect';\nimport { copy } from '../ssh/vscode/commands/copy';\nimport { start } from '../instances/vscode/commands/start';\nexport const t = [connect, copy, start];\n",
    },
    (src) => {
      const problems = checkLayers(src);
      for (const from of ['src/ssh/vscode/commands/copy.ts', 'src/instances/vscode/commands/start.ts', 'src/app/watchers.ts'])
        assert.ok(
          problems.some((p) => p.startsWith(`${from}: imports`) && p.includes('a command file is an entry point: only src/app/commandTable.ts imports it')),
          `${from}: ${problems.join('\n')}`,
        );
      assert.equal(problems.length, 3, problems.join('\n'));
    },
  );
});

test('layers: a new src/ folder must be placed in the layer rules first', async () => {
  await inSrcTree({ 'newFeature/x.ts': "import { y } from '../core/y';\nexport const x = y;\n", 'core/y.ts': 'export const y = 1;\n' }, (src) => {
    assert.deepEqual(checkLayers(src), [
      'src/newFeature is not in tools/lint/layers.mjs: add it to FOLDERS and ALLOWED (which folders it may import, and who may import it)',
    ]);
  });
});

test('layers: two files of src/ with the same base name fail, in any folders', async () => {
  await inSrcTree(
    {
      'logs/errors.ts': 'export const a = 1;\n',
      'api/errors.ts': 'export const b = 1;\n',
      'ssh/vscode/errors.ts': 'export const c = 1;\n',
      'ssh/keys.ts': 'export const d = 1;\n',
    },
    (src) => {
      assert.deepEqual(sameBaseNames(src), ['errors.ts: src/api/errors.ts, src/logs/errors.ts, src/ssh/vscode/errors.ts']);
      assert.deepEqual(checkLayers(src), [
        'two files of src/ share a base name (errors.ts: src/api/errors.ts, src/logs/errors.ts, src/ssh/vscode/errors.ts): name each file for what it holds, without its folder',
      ]);
    },
  );
});

test('layers: this repository has no layer problem and no folder cycle', () => {
  assert.deepEqual(checkLayers(join(root, 'src')), []);
});
