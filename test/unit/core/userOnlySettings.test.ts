// A workspace must not redirect the API key or choose which files on this machine are written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifest } from '../repoRoot';
import { USER_ONLY_FOREIGN_SETTINGS, USER_ONLY_SETTINGS, userOnly } from '../../../src/core/userOnlySettings';

const root = join(__dirname, '..', '..', '..');
const pkg = manifest<{
  contributes: {
    configuration: { properties: Record<string, { scope?: string; markdownDescription?: string }> } | Array<{ properties: Record<string, { scope?: string }> }>;
  };
}>();

function properties(): Record<string, { scope?: string; markdownDescription?: string }> {
  const c = pkg.contributes.configuration;
  return Array.isArray(c) ? Object.assign({}, ...c.map((x) => x.properties)) : c.properties;
}

test('gpuRental.apiBaseUrl and every setting that decides where secrets go or which files are written is application scope', () => {
  const props = properties();
  for (const key of USER_ONLY_SETTINGS) {
    assert.ok(props[key], `${key} is not contributed`);
    assert.equal(props[key]!.scope, 'application', `${key}: a workspace could set it (scope ${props[key]!.scope})`);
    assert.match(props[key]!.markdownDescription ?? '', /user settings only/i, `${key}: the description does not say so`);
  }
});

test('userOnly ignores workspace and folder values: the user value, else the default', () => {
  assert.equal(userOnly({ defaultValue: 'https://console.vast.ai', workspaceValue: 'https://evil.example' }), 'https://console.vast.ai');
  assert.equal(userOnly({ defaultValue: 'a', globalValue: 'b', workspaceValue: 'c', workspaceFolderValue: 'd' }), 'b');
  assert.equal(userOnly({ workspaceFolderValue: true }), undefined);
  assert.equal(userOnly(undefined), undefined);
});

test('the settings reader takes these settings through userOnly(inspect(...)), never get()', () => {
  const src = readFileSync(join(root, 'src', 'core', 'vscode', 'settings.ts'), 'utf8');
  for (const key of [...USER_ONLY_SETTINGS, ...USER_ONLY_FOREIGN_SETTINGS]) {
    const leaf = key.replace(/^(gpuRental|remote\.SSH)\./, '');
    assert.match(src, new RegExp(`userOnly\\([^)]*inspect<[^>]+>\\('${leaf.replace(/\./g, '\\.')}'\\)\\)`), `${key} is not read through userOnly`);
    assert.doesNotMatch(src, new RegExp(`\\.get<[^>]+>\\('${leaf.replace(/\./g, '\\.')}'`), `${key} is read with get(), which honours workspace values`);
  }
});
