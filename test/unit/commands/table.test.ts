// The command table (src/commands/index.ts), package.json contributes.commands and README's
// command tables list the same ids: a command added to one and forgotten in another fails here.
// The table module is loaded for real, with a stand-in for the `vscode` module (it only
// registers at activation, so loading it touches no VS Code API).
import '../../../bench/vscodeStub.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from '../../../src/commands/index';
import { repoRoot } from '../repoRoot';


interface Contributed {
  command: string;
  title: string;
  category?: string;
}

const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { contributes: { commands: Contributed[]; menus: Record<string, Array<{ command: string }>> } };

/** Ids in the first column of every README table whose header starts with "Command". */
export function readmeCommandIds(readme: string): string[] {
  const ids: string[] = [];
  let inCommandTable = false;
  let prevTableLine = false;
  for (const line of readme.split('\n')) {
    const isRow = line.trimStart().startsWith('|');
    if (isRow && !prevTableLine) inCommandTable = /^\|\s*Command\b/.test(line.trim());
    else if (isRow && inCommandTable && !/^\|\s*-/.test(line.trim())) {
      const first = line.trim().split(/(?<!\\)\|/)[1] ?? '';
      for (const m of first.matchAll(/`(gpuRental\.[\w.]+)`/g)) ids.push(m[1]!);
    }
    prevTableLine = isRow;
  }
  return ids;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();
const dupes = (xs: string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);

test('every id in the command table is contributed in package.json, and every contributed command is in the table', () => {
  const table = Object.keys(commands);
  const contributed = pkg.contributes.commands.map((c) => c.command);
  assert.deepEqual(dupes(contributed), [], 'a command is contributed twice');
  assert.deepEqual(sorted(table), sorted(contributed));
});

test("README's command tables list exactly the ids of the command table, each once", () => {
  const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
  const listed = readmeCommandIds(readme);
  assert.ok(listed.length > 10, `found only ${listed.length} command ids in README's command tables; did the table headers change?`);
  assert.deepEqual(dupes(listed), [], 'a command is listed twice in README');
  assert.deepEqual(sorted(listed), sorted(Object.keys(commands)));
});

test('every contributed command has the GPU Rental category and a title', () => {
  for (const c of pkg.contributes.commands) {
    assert.equal(c.category, 'GPU Rental', `${c.command} has no "GPU Rental" category`);
    assert.ok(c.title.trim(), `${c.command} has no title`);
  }
});

test('menus name only commands of the table', () => {
  const known = new Set(Object.keys(commands));
  for (const [menu, items] of Object.entries(pkg.contributes.menus)) {
    for (const i of items) assert.ok(known.has(i.command), `menu ${menu} names ${i.command}, which no handler runs`);
  }
});

test('the README reader finds ids in a command table and ignores other tables', () => {
  const text = ['| Setting | Default |', '|---|---|', '| `gpuRental.apiBaseUrl` | x |', '', '| Command | What |', '|---|---|', '| `gpuRental.a` / `gpuRental.b` | `gpuRental.c` in prose |', '| **Title** `gpuRental.d` | x |'].join('\n');
  assert.deepEqual(readmeCommandIds(text), ['gpuRental.a', 'gpuRental.b', 'gpuRental.d']);
});
