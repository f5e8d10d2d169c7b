// How scripts/build.mjs splits the extension into bundles, as functions it and the unit tests
// share. The split is declared in the source, once: every `import()` of a src/ module is a lazily
// loaded bundle (the loaders in src/app/commandTable.ts, the transport and schemas in
// src/api/pipeline.ts, ...). findLazyModules() reads those import() sites from esbuild's module
// graph; each target becomes dist/<its file name>.js, and every import of it from another bundle
// becomes a require of that file, so its module state exists once.
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Programs run on their own (`npm run sim`, scripts/sim-process.mjs; the process an SSH terminal runs),
 * built whether or not something import()s them: dist/<name>.js.
 */
export const programs = { sim: 'src/sim/index.ts', sshTerminal: 'src/ssh/sshTerminalMain.ts', mcp: 'src/agent/mcpMain.ts' };

/**
 * Packages with module state that the extension host must load once: every bundle of the extension
 * requires dist/<name>.js for them instead of keeping a copy. @vscode/l10n holds the translations
 * activation configures (src/app/coreL10n.ts); a copy inside a lazily loaded bundle would stay English.
 * The programs (separate processes) keep their own copy.
 */
export const sharedPackages = { l10n: '@vscode/l10n' };

/** dist/<name>.js for a src/ module: its file name, or its folder's for an index.ts. */
export function bundleName(root, file) {
  const rel = relative(join(root, 'src'), file).split('\\').join('/').replace(/\.ts$/, '');
  return rel.endsWith('/index') ? rel.slice(0, -'/index'.length).split('/').pop() : rel.split('/').pop();
}

/**
 * src/ modules that something reachable from `entry` import()s, by bundle name. Throws when two
 * would share a name. `options` are esbuild options the real build also uses (loaders, externals).
 */
export async function findLazyModules(root, entry, options = {}) {
  const r = await esbuild.build({
    ...options,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    absWorkingDir: root,
    logLevel: 'silent',
  });
  const found = new Map();
  for (const input of Object.values(r.metafile.inputs)) {
    for (const imp of input.imports) {
      if (imp.kind !== 'dynamic-import' || !imp.path.startsWith('src/')) continue;
      const file = join(root, imp.path);
      const name = bundleName(root, file);
      const other = found.get(name);
      if (other && other !== file)
        throw new Error(`scripts/build.mjs: ${relative(root, other)} and ${imp.path} are both import()ed and would both be dist/${name}.js; rename one`);
      found.set(name, file);
    }
  }
  return found;
}

/**
 * A top-level `let`/`var`, or an empty Map/Set made when the module loads (to be filled: a
 * Set of constants is a table, not state): state that a second copy would not share.
 */
export const STATEFUL = /^(?:export )?(?:let|var) |^(?:export )?const \w+(?::[^=]+)? = new (?:Map|Set|WeakMap|WeakSet)(?:<[^>]*>)?\(\)/;

/** Marks a line whose state may exist once per bundle (a memo of something pure). */
export const PER_BUNDLE = '// per-bundle cache';

/** Lines of `text` that keep module state (and are not marked PER_BUNDLE). */
export function statefulLines(text) {
  return text.split('\n').filter((l) => STATEFUL.test(l) && !l.includes(PER_BUNDLE));
}

/** src/ modules with state that ended up in more than one dist/ file: [[src, [outputs]]]. */
export function statefulCopies(root, metafiles) {
  const where = new Map();
  for (const m of metafiles) {
    for (const [out, o] of Object.entries(m?.outputs ?? {})) {
      if (!out.startsWith('dist/') || out.endsWith('.map')) continue;
      for (const [src, v] of Object.entries(o.inputs)) if (v.bytesInOutput > 0 && src.startsWith('src/')) where.set(src, [...(where.get(src) ?? []), out]);
    }
  }
  return [...where].filter(([src, outs]) => outs.length > 1 && statefulLines(readFileSync(join(root, src), 'utf8')).length > 0);
}
