// package.json's languageModelTools are the catalogue's tools, generated (scripts/agentManifest.mjs):
// one source for names, descriptions and schemas. And what VS Code's copy changes holds: the
// prefix, no quote_id (the editor asks instead), editor descriptions only where the catalogue's
// explain the quote step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EDITOR_DESCRIPTIONS, VSCODE_TOOL_PREFIX, coreToolName, languageModelTools } from '../../../src/agent/vscode/toolManifest';
import { TOOLS, needsConsent, toolNamed } from '../../../src/agent/toolCatalogue';
import { manifest, repoRoot } from '../repoRoot';

const root = repoRoot();
// package.json with its %key% texts resolved (they may move to package.nls.json for translation).
const pkg = manifest<{
  engines: { vscode: string };
  contributes: { languageModelTools?: unknown[]; mcpServerDefinitionProviders?: { id: string; label: string }[] };
}>();

test("package.json holds exactly the catalogue's tools (else: node scripts/agentManifest.mjs)", () => {
  assert.deepEqual(pkg.contributes.languageModelTools, JSON.parse(JSON.stringify(languageModelTools())));
  assert.equal(languageModelTools().length, TOOLS.length);
});

test('every tool: prefixed unique name, the catalogue name as reference, a description, an object schema without quote_id', () => {
  const names = new Set<string>();
  for (const t of languageModelTools()) {
    assert.ok(t.name.startsWith(VSCODE_TOOL_PREFIX), t.name);
    assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/, 'VS Code and model APIs take [A-Za-z0-9_-] names');
    assert.ok(!names.has(t.name), `${t.name} twice`);
    names.add(t.name);
    assert.equal(coreToolName(t.name), t.toolReferenceName);
    assert.ok(toolNamed(t.toolReferenceName), t.toolReferenceName);
    assert.ok(t.modelDescription.length > 40 && t.userDescription.length > 5, t.name);
    assert.ok(t.modelDescription.startsWith(t.userDescription), `${t.name}: the user's text is the description's first sentence`);
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.ok(!JSON.stringify(t.inputSchema).includes('quote_id'), `${t.name}: no quote in VS Code`);
    assert.ok(!/quote_id/.test(t.modelDescription), `${t.name}: the description explains no quote step VS Code does not have`);
  }
});

test('editor descriptions replace only the catalogue texts of consent tools that explain the quote step', () => {
  for (const [name, text] of Object.entries(EDITOR_DESCRIPTIONS)) {
    const tool = toolNamed(name);
    assert.ok(tool, `${name} is not a tool`);
    assert.ok(needsConsent(tool), `${name} needs no consent`);
    assert.match(tool.modelDescription, /quote_id/, `${name}: its catalogue text needs no editor version`);
    assert.ok(text.length > 60);
  }
});

test('the MCP server definition provider is declared with the id the extension registers', () => {
  const entry = readFileSync(join(root, 'src/agent/vscode/agentEntry.ts'), 'utf8');
  const id = /const MCP_PROVIDER_ID = '([^']+)'/.exec(entry)?.[1];
  assert.ok(id, 'agentEntry.ts names its provider id');
  assert.deepEqual(
    pkg.contributes.mcpServerDefinitionProviders?.map((p) => p.id),
    [id],
  );
});

test('docs/agents.md names every VS Code tool', () => {
  const doc = readFileSync(join(root, 'docs/agents.md'), 'utf8');
  for (const t of languageModelTools()) assert.ok(doc.includes(`\`${t.name}\``), `docs/agents.md does not name ${t.name}`);
});
