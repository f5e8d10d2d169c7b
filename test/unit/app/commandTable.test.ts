// The command table (src/app/commandTable.ts), package.json contributes.commands and the command
// tables of the user docs (README.md and docs/*.md) list the same ids, and docs/settings.md lists
// every setting with its default: a command or setting added to one and forgotten in another fails here.
// The table module is loaded for real, with a stand-in for the `vscode` module (it only
// registers at activation, so loading it touches no VS Code API).
import '../../../bench/vscodeStub.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from '../../../src/app/commandTable';
import { repoRoot, manifest } from '../repoRoot';

interface Setting {
  type: string;
  default: unknown;
}

interface Contributed {
  command: string;
  title: string;
  category?: string;
}

/** The user documentation: README.md and every page under docs/, as { file, text }. */
export function userDocs(root = repoRoot()): Array<{ file: string; text: string }> {
  const pages = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages].map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
}

/** Every text that names `gpuRental.*`: the user docs, CONTRIBUTING.md, the demo workspace's README and the walkthrough pages. */
function allDocs(): Array<{ file: string; text: string }> {
  const root = repoRoot();
  const walkthrough = readdirSync(join(root, 'media', 'walkthrough'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `media/walkthrough/${f}`);
  const more = ['CONTRIBUTING.md', 'demo-workspace/README.md', ...walkthrough].map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
  return [...userDocs(root), ...more];
}

const pkg = manifest() as {
  contributes: { commands: Contributed[]; menus: Record<string, Array<{ command: string }>>; configuration: { properties: Record<string, Setting> } };
};

/** The rows (cells split on unescaped `|`) of every Markdown table whose header starts with `header`. */
export function readmeTableRows(readme: string, header: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  let prevTableLine = false;
  const head = new RegExp(`^\\|\\s*${header}\\b`);
  for (const line of readme.split('\n')) {
    const isRow = line.trimStart().startsWith('|');
    if (isRow && !prevTableLine) inTable = head.test(line.trim());
    else if (isRow && inTable && !/^\|\s*-/.test(line.trim()))
      rows.push(
        line
          .trim()
          .split(/(?<!\\)\|/)
          .slice(1, -1),
      );
    prevTableLine = isRow;
  }
  return rows;
}

/** Ids in the first column of every Markdown table whose header starts with "Command". */
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

test("the docs' command tables list exactly the ids of the command table, each once", () => {
  const docs = userDocs();
  const listed = docs.flatMap((d) => readmeCommandIds(d.text));
  assert.ok(listed.length > 10, `found only ${listed.length} command ids in the docs' command tables; did the table headers change?`);
  const where = (id: string) =>
    docs
      .filter((d) => readmeCommandIds(d.text).includes(id))
      .map((d) => d.file)
      .join(', ');
  assert.deepEqual(
    dupes(listed).map((id) => `${id} (${where(id)})`),
    [],
    'a command is listed twice in the docs',
  );
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
  const text = [
    '| Setting | Default |',
    '|---|---|',
    '| `gpuRental.apiBaseUrl` | x |',
    '',
    '| Command | What |',
    '|---|---|',
    '| `gpuRental.a` / `gpuRental.b` | `gpuRental.c` in prose |',
    '| **Title** `gpuRental.d` | x |',
  ].join('\n');
  assert.deepEqual(readmeCommandIds(text), ['gpuRental.a', 'gpuRental.b', 'gpuRental.d']);
});

test('docs/settings.md lists every contributed setting once, with its default, and no other page has a Settings table', () => {
  const docs = userDocs();
  assert.deepEqual(
    docs.filter((d) => d.file !== 'docs/settings.md' && readmeTableRows(d.text, 'Setting').length).map((d) => d.file),
    [],
    'a second Settings table would drift: link to docs/settings.md instead',
  );
  const rows = readmeTableRows(readFileSync(join(repoRoot(), 'docs', 'settings.md'), 'utf8'), 'Setting');
  const listed = rows.map((cells) => /^\s*`(gpuRental\.[\w.]+)`\s*$/.exec(cells[0] ?? '')?.[1] ?? `(not a setting id: ${cells[0]})`);
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(dupes(listed), [], 'a setting is listed twice in docs/settings.md');
  assert.deepEqual(sorted(listed), sorted(Object.keys(props)), "docs/settings.md's Settings table and package.json contributes.configuration differ");
  for (const cells of rows) {
    const id = listed[rows.indexOf(cells)]!;
    const d = props[id]!.default;
    const shown = d === '' ? /empty/i : new RegExp(`\`${String(d).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``);
    assert.match(cells[1] ?? '', shown, `${id}: the default column of docs/settings.md does not show the default ${JSON.stringify(d)} of package.json`);
  }
});

test('the README table reader splits rows and skips the separator', () => {
  const text = ['| Setting | Default | Meaning |', '|---|---|---|', '| `gpuRental.a` | `1` | a \\| b |', '', '| Other |', '|---|', '| `gpuRental.b` |'].join(
    '\n',
  );
  assert.deepEqual(readmeTableRows(text, 'Setting'), [[' `gpuRental.a` ', ' `1` ', ' a \\| b ']]);
});

test('every gpuRental.* name in README, docs/, CONTRIBUTING and the walkthrough is a command, a setting, a view or a secret of the extension', () => {
  const p = pkg as typeof pkg & { contributes: { views: Record<string, Array<{ id: string }>>; viewsWelcome: Array<{ when: string }> } };
  const known = new Set([
    ...Object.keys(commands),
    // the context keys that choose welcome content (gpuRental.noInstances, …)
    ...p.contributes.viewsWelcome.flatMap((w) => w.when.match(/gpuRental\.\w+/g) ?? []),
    ...Object.keys(p.contributes.configuration.properties),
    ...Object.values(p.contributes.views)
      .flat()
      .map((v) => v.id),
    'gpuRental.apiKey', // the secret storage entries (src/app/vscodeAdapters.ts SECRET_PREFIX)
    'gpuRental.sessionKey',
    'gpuRental.tfa', // `gpuRental.tfa.*`
  ]);
  const unknown = allDocs().flatMap((d) =>
    [...new Set([...d.text.matchAll(/gpuRental\.[A-Za-z][\w.]*[A-Za-z0-9]/g)].map((m) => m[0]))].filter((n) => !known.has(n)).map((n) => `${d.file}: ${n}`),
  );
  assert.deepEqual(unknown, [], 'the docs name these, which the extension does not have');
});
