// Writes package.json's contributes.languageModelTools from the agent tool catalogue
// (src/agent/vscode/toolManifest.ts), the one source of the tools' names, descriptions and input
// schemas. Run it after changing a tool: `node scripts/agentManifest.mjs` (`--check` only
// compares, as test/unit/agent/toolManifest.test.ts does).
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const built = await esbuild.build({
  entryPoints: [join(root, 'src/agent/vscode/toolManifest.ts')],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
  loader: { '.sh': 'text' },
  // As the build: ssh2's optional native addon is never bundled (the key check reaches ssh2 through ssh/keys.ts).
  external: ['vscode', 'cpu-features', '*.node'],
});
const { languageModelTools } = await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString('base64')}`);
const file = join(root, 'package.json');
const text = readFileSync(file, 'utf8');
const pkg = JSON.parse(text);
const want = languageModelTools();
if (JSON.stringify(pkg.contributes.languageModelTools) === JSON.stringify(want)) {
  console.log(`package.json: the ${want.length} language-model tools match the catalogue`);
} else if (process.argv.includes('--check')) {
  console.error('package.json: contributes.languageModelTools differs from the catalogue: run `node scripts/agentManifest.mjs`');
  process.exit(1);
} else {
  pkg.contributes.languageModelTools = want;
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(`package.json: wrote ${want.length} language-model tools`);
}
