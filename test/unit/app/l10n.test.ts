// Ready for translation (VS Code's convention): the manifest's texts live in package.nls.json as
// "%key%", and every message of the VS Code parts goes through vscode.l10n.t, whose English
// strings l10n/bundle.l10n.json lists (`npm run l10n` writes it) for translators to start from.
// The plain-TypeScript cores translate through @vscode/l10n's l10n.t, which activation configures
// with VS Code's bundle (src/app/coreL10n.ts); their messages are in the same bundle.
import { test } from 'node:test';
import * as l10n from '@vscode/l10n';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../repoRoot';
import { instanceIn } from '../../kit/fixtures';
import { stateText } from '../../../src/core/instanceWords';
import { ApiError } from '../../../src/api/errors';

const root = repoRoot();
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((n) => {
    const p = `${dir}/${n}`;
    return statSync(join(root, p)).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The first argument of every l10n.t('…') call in `text` (vscode.l10n.t or @vscode/l10n's), unescaped. */
function l10nKeys(text: string): string[] {
  return [...text.matchAll(/l10n\.t\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g)].map((m) =>
    m[1] !== undefined ? (JSON.parse(`"${m[1].replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string) : (JSON.parse(`"${m[2]!}"`) as string),
  );
}

/** src/ files outside the VS Code parts and the composition root: the plain-TypeScript cores. */
const isCore = (f: string) => !f.includes('/vscode/') && !f.startsWith('src/app/') && f !== 'src/extension.ts';

test('l10nKeys reads the message of a call, escapes included', () => {
  assert.deepEqual(l10nKeys("vscode.l10n.t('It\\'s {0} of {1}', a, b); vscode.l10n.t('two\\nlines')"), ["It's {0} of {1}", 'two\nlines']);
  assert.deepEqual(l10nKeys('l10n.t("The offer\'s {0}", x)'), ["The offer's {0}"]);
});

test('every vscode.l10n.t message of src/ is in l10n/bundle.l10n.json (run `npm run l10n` after changing one)', () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, unknown>;
  const used = tsFiles('src').flatMap((f) => l10nKeys(read(f)).map((k) => ({ f, k })));
  assert.ok(used.length > 600, `only ${used.length} translatable messages found`);
  const missing = used.filter(({ k }) => !(k in bundle));
  assert.deepEqual(missing, [], 'messages missing from l10n/bundle.l10n.json');
});

test("the cores' messages go through @vscode/l10n and are in the bundle", () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, unknown>;
  const cores = tsFiles('src').filter((f) => isCore(f) && l10nKeys(read(f)).length > 0);
  const used = cores.flatMap((f) => l10nKeys(read(f)));
  assert.ok(used.length > 600, `only ${used.length} translatable messages found in the cores`);
  for (const f of cores) assert.match(read(f), /^import \* as l10n from '@vscode\/l10n';$/m, `${f} calls l10n.t without importing @vscode/l10n`);
  assert.deepEqual(
    used.filter((k) => !(k in bundle)),
    [],
    'core messages missing from l10n/bundle.l10n.json (run `npm run l10n`)',
  );
});

test("a core text is translated once @vscode/l10n has a bundle (what activation does with VS Code's), and English without one", () => {
  const running = instanceIn(1, 'running');
  const timeout = new ApiError({ kind: 'rate_limited', retryAfterSec: 30, message: 'GET /x: 429' });
  assert.equal(stateText(running), 'running');
  l10n.config({ contents: { running: '[ŕûññîñĝ]', 'Wait {0} seconds and try again.': '[Ŵåîţ {0} šéçöñðš]' } });
  try {
    assert.equal(stateText(running), '[ŕûññîñĝ]');
    assert.equal(timeout.userMessage(), 'The service is limiting how often requests can be made. [Ŵåîţ 30 šéçöñðš]');
  } finally {
    l10n.config({ contents: {} });
  }
  assert.equal(stateText(running), 'running');
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
