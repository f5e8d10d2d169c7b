// The project's ESLint config for fixture sources: fixtures name files that do not exist, which
// the typed rules cannot read, so they run here without types (the typed rules have their own
// fixtures, on real files, in layers.test.ts).
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { repoRoot } from '../repoRoot';

export const root = repoRoot();
export const lintConfig = join(root, 'tools/lint/eslint.config.mjs');

export const fixtureLint = new ESLint({
  cwd: root,
  overrideConfigFile: lintConfig,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});
