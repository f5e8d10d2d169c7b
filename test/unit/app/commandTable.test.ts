// The command table (src/app/commandTable.ts), package.json contributes.commands and README's
// command tables list the same ids: a command added to one and forgotten in another fails here.
// The table module is loaded for real, with a stand-in for the `vscode` module (it only
// registers at activation, so loading it touches no VS Code API).
import '../../../bench/vscodeStub.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from '../../../src/app/commandTable';
import { repoRoot } from '../repoRoot';
import { readdirSync } from 'node:fs';

/** README.md and every docs/*.md page: the user documentation, where each command and setting is listed once. */
function userDocs(): string {
  const dir = join(repoRoot(), 'docs');
  const pages = readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
  return [readFileSync(join(repoRoot(), 'README.md'), 'utf8'), ...pages.map((n) => readFileSync(join(dir, n), 'utf8'))].join('\n\n');
}


interface Setting {
  type: string;
  default: unknown;
}

interface Contributed {
  command: string;
  title: string;
  category?: string;
}

const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { contributes: { commands: Contributed[]; menus: Record<string, Array<{ command: string }>>; configuration: { properties: Record<string, Setting> } } };

/** The rows (cells split on unescaped `|`) of every README table whose header starts with `header`. */
export function readmeTableRows(readme: string, header: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  let prevTableLine = false;
  const head = new RegExp(`^\\|\\s*${header}\\b`);
  for (const line of readme.split('\n')) {
    const isRow = line.trimStart().startsWith('|');
    if (isRow && !prevTableLine) inTable = head.test(line.trim());
    else if (isRow && inTable && !/^\|\s*-/.test(line.trim())) rows.push(line.trim().split(/(?<!\\)\|/).slice(1, -1));
    prevTableLine = isRow;
  }
  return rows;
}

/** Ids in the first column of every README table whose header starts with "Command". */
export function readmeCommandIds(readme: string): string[] {
  return readmeTableRows(readme, 'Command').flatMap((cells) => [...(cells[0] ?? '').matchAll(/`(gpuRental\.[\w.]+)`/g)].map((m) => m[1]!));
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
  const readme = userDocs();
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

test("README's Settings table lists every contributed setting once, with its default", () => {
  const readme = userDocs();
  const rows = readmeTableRows(readme, 'Setting');
  const listed = rows.map((cells) => /^\s*`(gpuRental\.[\w.]+)`\s*$/.exec(cells[0] ?? '')?.[1] ?? `(not a setting id: ${cells[0]})`);
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(dupes(listed), [], 'a setting is listed twice in README');
  assert.deepEqual(sorted(listed), sorted(Object.keys(props)), "README's Settings table and package.json contributes.configuration differ");
  for (const cells of rows) {
    const id = listed[rows.indexOf(cells)]!;
    const d = props[id]!.default;
    const shown = d === '' ? /empty/i : new RegExp(`\`${String(d).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``);
    assert.match(cells[1] ?? '', shown, `${id}: README's default column does not show the default ${JSON.stringify(d)} of package.json`);
  }
});

test('the README table reader splits rows and skips the separator', () => {
  const text = ['| Setting | Default | Meaning |', '|---|---|---|', '| `gpuRental.a` | `1` | a \\| b |', '', '| Other |', '|---|', '| `gpuRental.b` |'].join('\n');
  assert.deepEqual(readmeTableRows(text, 'Setting'), [[' `gpuRental.a` ', ' `1` ', ' a \\| b ']]);
});

test('every gpuRental.* name in README is a command, a setting, a view or a secret of the extension', () => {
  const readme = userDocs();
  const p = pkg as typeof pkg & { contributes: { views: Record<string, Array<{ id: string }>> } };
  const known = new Set([
    ...Object.keys(commands),
    ...Object.keys(p.contributes.configuration.properties),
    ...Object.values(p.contributes.views).flat().map((v) => v.id),
    'gpuRental.apiKey', // the secret storage entries (src/app/createServices.ts SECRET_PREFIX)
    'gpuRental.sessionKey',
    'gpuRental.tfa', // `gpuRental.tfa.*`
  ]);
  const named = new Set([...readme.matchAll(/gpuRental\.[A-Za-z][\w.]*[A-Za-z0-9]/g)].map((m) => m[0]));
  assert.deepEqual([...named].filter((n) => !known.has(n)), [], 'README names these, which the extension does not have');
});
