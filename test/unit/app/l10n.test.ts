// Ready for translation (VS Code's convention): the manifest's texts live in package.nls.json as
// "%key%", and every message of the VS Code parts goes through vscode.l10n.t, whose English
// strings l10n/bundle.l10n.json lists (`npm run l10n` writes it) for translators to start from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../repoRoot';

const root = repoRoot();
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((n) => {
    const p = `${dir}/${n}`;
    return statSync(join(root, p)).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The first argument of every vscode.l10n.t('…') call in `text`, unescaped. */
function l10nKeys(text: string): string[] {
  return [...text.matchAll(/l10n\.t\(\s*'((?:[^'\\]|\\.)*)'/g)].map((m) => JSON.parse(`"${m[1]!.replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string);
}

test('l10nKeys reads the message of a call, escapes included', () => {
  assert.deepEqual(l10nKeys("vscode.l10n.t('It\\'s {0} of {1}', a, b); vscode.l10n.t('two\\nlines')"), ["It's {0} of {1}", 'two\nlines']);
});

test('every vscode.l10n.t message of src/ is in l10n/bundle.l10n.json (run `npm run l10n` after changing one)', () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, unknown>;
  const used = tsFiles('src').flatMap((f) => l10nKeys(read(f)).map((k) => ({ f, k })));
  assert.ok(used.length > 150, `only ${used.length} translatable messages found`);
  const missing = used.filter(({ k }) => !(k in bundle));
  assert.deepEqual(missing, [], 'messages missing from l10n/bundle.l10n.json');
});

test("package.json's titles, view names, setting descriptions and walkthrough texts are %keys% of package.nls.json", () => {
  const raw = JSON.parse(read('package.json')) as {
    contributes: { commands: Array<{ title: string }>; configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> } };
  };
  const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
  const keys = [...read('package.json').matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!);
  assert.deepEqual(
    keys.filter((k) => !(k in nls)),
    [],
    'keys package.json names that package.nls.json lacks',
  );
  for (const c of raw.contributes.commands) assert.match(c.title, /^%.+%$/, `a command title is inline: ${c.title}`);
  for (const [k, v] of Object.entries(raw.contributes.configuration.properties)) {
    const text = v.markdownDescription ?? v.description;
    if (text !== undefined) assert.match(text, /^%.+%$/, `${k}: its description is inline`);
  }
});
