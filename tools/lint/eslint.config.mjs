// The lint tier (`npm run lint`, run by `npm test`): typescript-eslint's recommended rules, no
// console in src/ outside the simulator, and no-restricted-imports for the layer rules of
// tools/lint/layers.mjs (README "Architecture"): a folder imports only the folders below it,
// views never import commands, and `vscode` only in extension.ts, host/, views/ and commands/.
// scripts/lint.mjs adds what one file at a time cannot show: import() across a boundary and
// cycles between folders.
import Module, { createRequire } from 'node:module';
import { ALLOWED, FOLDERS, USES_VSCODE } from './layers.mjs';

// typescript-eslint parses with the TypeScript JS API, which the project's TypeScript 7 (the
// native compiler, used by `npm run typecheck`) no longer ships. tools/lint/package.json brings
// TypeScript 6 for the linter alone; npm hoists some of typescript-eslint's helpers
// (ts-api-utils) to the root, where `require('typescript')` would find 7, so in this process
// every `require('typescript')` gets the linter's copy.
const lintTypescript = createRequire(import.meta.url).resolve('typescript');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'typescript' ? lintTypescript : resolveFilename.call(this, request, ...rest);
};
const { default: tseslint } = await import('typescript-eslint');

const WHY = {
  views: 'views render and never import a command: run it by id (vscode.commands.executeCommand) or move shared state into src/model/',
  host: 'host/ is the composition root below views and commands',
};

/** no-restricted-imports options for files in `folder`. */
function boundaries(folder) {
  const forbidden = FOLDERS.filter((f) => f !== folder && !ALLOWED[folder].includes(f));
  const patterns = forbidden.map((f) => ({
    regex: `^(\\.\\./)+${f}(/|$)`,
    message: `src/${folder}/ must not import src/${f}/: ${WHY[folder] && (f === 'commands' || f === 'views') ? WHY[folder] : `the layers point one way (${folder} may import ${ALLOWED[folder].join(', ') || 'nothing of the rest'})`}. See README "Architecture".`,
  }));
  const paths = USES_VSCODE.includes(folder) ? [] : [{ name: 'vscode', message: `src/${folder}/ is plain TypeScript: only extension.ts, host/, views/ and commands/ import vscode.` }];
  return ['error', { paths, patterns }];
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'out/**', '.vscode-test/**', 'test-results/**', '.demo/**', 'tools/lint/fixtures/**'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: {
      // Unused arguments are part of a handler's documented shape; a leading _ says so.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  // Tests read loosely typed JSON from the simulator.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['src/**/*.ts'], ignores: ['src/sim/**'], rules: { 'no-console': 'error' } },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/commands/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'MemberExpression[property.name=/^register(TextEditor)?Command$/]', message: 'Commands are registered only by the command table in src/commands/index.ts: add a row there.' },
      ],
    },
  },
  {
    files: ['src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^\\./(${FOLDERS.filter((f) => !ALLOWED['extension.ts'].includes(f)).join('|')})(/|$)`, message: 'extension.ts only wires host/, views/ and commands/ together.' }] },
      ],
    },
  },
  ...FOLDERS.map((folder) => ({ files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': boundaries(folder) } })),
);
