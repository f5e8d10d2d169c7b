// The lint tier (`npm run lint`, run by `npm test`): typescript-eslint's recommended rules, no
// console in src/ outside the simulator, no file over 500 lines and no function over 120 in src/,
// and no-restricted-imports for the layer rules of
// tools/lint/layers.mjs (CONTRIBUTING.md "Architecture"), one file at a time: a core imports only
// the cores below it and never `vscode` or a VS Code part; a VS Code part uses its own feature,
// src/core/, src/api/ and the features below its own (nothing above); views never import commands. scripts/lint.mjs adds what one
// file at a time cannot show: import() across a boundary, and cycles.
import Module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ALLOWED, FOLDERS, VSCODE_PARTS } from './layers.mjs';
import { ownerConfigs } from './owners.mjs';

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

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Calls whose promise may float: node:test reports a failing test itself; VS Code's notifications
// and status bar messages resolve (to undefined when dismissed) and never reject, and a webview's
// postMessage resolves false when the webview is gone.
const SAFE_CALLS = [
  { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
  { from: 'package', package: 'vscode', name: ['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'setStatusBarMessage', 'postMessage'] },
];
const DOCS = 'See CONTRIBUTING.md "Architecture".';
const up = (folder, sub = '') => `^(\\.\\./)+${folder}${sub}(/|$)`;

/** no-restricted-imports options for the core of `folder` (its files outside vscode/). */
function coreBoundaries(folder) {
  const patterns = FOLDERS.filter((f) => f !== folder && !ALLOWED[folder].includes(f)).map((f) => ({
    regex: up(f),
    message: `src/${folder}/ must not import src/${f}/: the layers point one way (src/${folder}/ may import ${ALLOWED[folder].join(', ') || 'nothing of the rest'}). ${DOCS}`,
  }));
  patterns.push({ regex: '^\\.{1,2}/(.*/)?vscode(/|$)', message: `src/${folder}/ is a plain-TypeScript core: it never imports a VS Code part. ${DOCS}` });
  return ['error', { paths: [{ name: 'vscode', message: `src/${folder}/ is plain TypeScript: only ${VSCODE_PARTS} import vscode. ${DOCS}` }], patterns }];
}

/** no-restricted-imports options for the VS Code part of `folder`: its views, or (commands) its command handlers. */
function uiBoundaries(folder, commands) {
  const others = FOLDERS.filter((f) => f !== folder && f !== 'core' && f !== 'api' && f !== 'app' && !ALLOWED[folder].includes(f));
  const patterns = others.map((f) => ({
    regex: up(f),
    message: `src/${folder}/vscode/ must not import src/${f}/: a VS Code part uses its own feature, src/core/, src/api/ and the features below its own (move the word it needs down, or name a port in src/core/). ${DOCS}`,
  }));
  patterns.push({
    regex: up('app'),
    message: `Only src/extension.ts imports src/app/ (the composition root); the Services type is in src/core/vscode/services.ts. ${DOCS}`,
  });
  if (!commands)
    patterns.push({
      regex: '(^|/)commands(/|$)',
      message: `Views render and never import a command: run it by id (vscode.commands.executeCommand) or move what both need into a core. ${DOCS}`,
    });
  else
    patterns.push({
      regex: '^\\./|(^|/)commands(/|$)',
      message: `A command file is an entry point, imported only by src/app/commandTable.ts: move the step both commands need into the feature's core or its vscode/ folder. ${DOCS}`,
    });
  return ['error', { patterns }];
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
  // Typed rules (CONTRIBUTING.md "Lint rules"): they read types through TypeScript 6's project
  // service (the tsconfig.json of the repository root), so a promise nobody awaits is an error.
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false, checkThenables: true, allowForKnownSafeCalls: SAFE_CALLS }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // Tests read loosely typed JSON from the simulator.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['src/**/*.ts'], ignores: ['src/sim/**'], rules: { 'no-console': 'error' } },
  // Size: a function fits on a screen or two, a file reads in one sitting. Lines are counted raw
  // (blank lines and comments count) so a split cannot be dodged by deleting comments.
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  // One owner per side effect (tools/lint/owners.mjs): registering commands, making API clients,
  // setting the API key, keeping the billing session, naming a state key.
  ...ownerConfigs(),
  {
    files: ['src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\./(${FOLDERS.filter((f) => f !== 'app').join('|')})/(?!vscode/)`,
              message: 'extension.ts only wires src/app/ and VS Code parts together.',
            },
          ],
        },
      ],
    },
  },
  ...FOLDERS.filter((f) => f !== 'app').flatMap((folder) => [
    { files: [`src/${folder}/**/*.ts`], ignores: [`src/${folder}/vscode/**`], rules: { 'no-restricted-imports': coreBoundaries(folder) } },
    { files: [`src/${folder}/vscode/**/*.ts`], ignores: [`src/${folder}/vscode/commands/**`], rules: { 'no-restricted-imports': uiBoundaries(folder, false) } },
    { files: [`src/${folder}/vscode/commands/**/*.ts`], rules: { 'no-restricted-imports': uiBoundaries(folder, true) } },
  ]),
);
