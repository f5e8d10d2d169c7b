// The layer rules, in one place: which part of src/ may import which. Read by the ESLint config
// (no-restricted-imports, one file at a time) and by checkLayers() below, which sees the whole
// graph: every import, export-from, type import and import() of src/, so it also finds what
// one-file rules cannot (a dynamic import across a boundary, a cycle between parts).
//
// src/ is organised by feature (CONTRIBUTING.md "Architecture"). Each folder below is a feature
// or shared plumbing; its files are plain TypeScript (the *core*) except those under its
// `vscode/` folder (its *VS Code part*), and the command handlers among those live in
// `vscode/commands/`. The rules:
//   1. A core imports only its own folder and the cores ALLOWED names for it. It never imports
//      `vscode`, a VS Code part or src/app/.
//   2. A VS Code part may import its own feature (core and VS Code part), src/core/ and src/api/,
//      and the cores and VS Code parts of the features its core may import (ALLOWED again, so
//      the order holds): nothing above it. src/core/vscode/ imports no feature.
//   3. A command file (under `vscode/commands/`) is an entry point: only src/app/commandTable.ts
//      imports it. Views run a command by its id; steps two commands share live in the feature's
//      core or `vscode/`.
//   4. src/app/ (the composition root, the one command table, the view registration) may import
//      everything; src/extension.ts imports only src/app/ and VS Code parts.
//   5. No cycle between parts (a core and its VS Code part count as two).
//   6. No two files of src/ share a base name (sameBaseNames).
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The folders of src/, bottom first. */
export const FOLDERS = [
  'api',
  'sim',
  'core',
  'ssh',
  'costs',
  'instances',
  'offers',
  'logs',
  'guard',
  'demo',
  'billing',
  'account',
  'create',
  'groups',
  'agent',
  'app',
];

/** Which other cores each core may import. */
export const ALLOWED = {
  api: [],
  sim: [],
  core: ['api'],
  ssh: ['core', 'api'],
  costs: ['core', 'api'],
  instances: ['costs', 'ssh', 'core', 'api'],
  offers: ['core', 'api'],
  logs: ['core', 'api'],
  guard: ['core', 'api'],
  // The demo runs the simulator in-process with its own watchdog (the guard's script).
  demo: ['guard', 'sim', 'core', 'api'],
  account: ['billing', 'ssh', 'demo', 'core', 'api'],
  create: ['instances', 'guard', 'costs', 'ssh', 'core', 'api'],
  billing: ['instances', 'guard', 'costs', 'core', 'api'],
  // A group of machines drives the create flow N times under one all-or-none owner.
  groups: ['create', 'instances', 'guard', 'costs', 'ssh', 'core', 'api'],
  agent: ['account', 'create', 'billing', 'instances', 'offers', 'logs', 'guard', 'costs', 'ssh', 'core', 'api'],
  app: FOLDERS.filter((f) => f !== 'app'),
};

/** Where `vscode` may be imported, in words (for messages). */
export const VSCODE_PARTS = 'src/<feature>/vscode/, src/app/ and src/extension.ts';

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(=[,])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Where a file of src/ stands: its folder, whether it is in a VS Code part and whether it is a
 * command handler. `node` names it in the graph: `ssh`, `ssh/vscode`, `app`, `extension.ts`;
 * `path` is the file relative to src/.
 */
export function partOf(srcDir, file) {
  const segs = relative(srcDir, file).split('\\').join('/').split('/');
  const path = segs.join('/');
  if (segs.length === 1) return { folder: segs[0], node: segs[0], ui: true, command: false, path };
  const folder = segs[0];
  const ui = folder === 'app' || segs[1] === 'vscode';
  const command = segs[1] === 'vscode' && segs[2] === 'commands' && segs.length > 3;
  return { folder, node: segs[1] === 'vscode' ? `${folder}/vscode` : folder, ui, command, path };
}

/** The one file that imports command files. */
export const COMMAND_TABLE = 'app/commandTable.ts';

/** Why `from` may not import `to` (both partOf results), or undefined when it may. */
export function forbidden(from, to) {
  if (to.command && from.path !== COMMAND_TABLE)
    return `a command file is an entry point: only src/${COMMAND_TABLE} imports it (views run a command by id; move a step two commands share into the feature's core or vscode/)`;
  if (from.folder === 'app' || (from.node === to.node && from.command === to.command)) return undefined;
  if (from.node === 'extension.ts')
    return to.folder === 'app' || to.node.endsWith('/vscode') ? undefined : 'src/extension.ts imports only src/app/ and VS Code parts';
  if (to.folder === 'app' || to.node === 'extension.ts') return 'only src/extension.ts imports src/app/ (the composition root)';
  if (!from.ui) {
    if (to.ui) return `a core (src/${from.folder}/) never imports a VS Code part`;
    if (to.folder !== from.folder && !ALLOWED[from.folder]?.includes(to.folder))
      return `the layers point one way (src/${from.folder}/ may import ${ALLOWED[from.folder]?.map((f) => `src/${f}/`).join(', ') || 'nothing of the rest'})`;
    return undefined;
  }
  // From a VS Code part.
  if (to.command && !from.command)
    return 'views render and never import a command: run it by id (vscode.commands.executeCommand) or move what both need into a core';
  if (to.folder === from.folder || to.folder === 'core' || to.folder === 'api' || ALLOWED[from.folder]?.includes(to.folder)) return undefined;
  const below = ALLOWED[from.folder]
    ?.filter((f) => f !== 'api' && f !== 'core')
    .map((f) => `src/${f}/`)
    .join(', ');
  return `the layers point one way: src/${from.node}/ may import its own feature, src/core/, src/api/${below ? ` and ${below}` : ''} (the features its core may import), never src/${to.folder}/ (move the word it needs down, or name a port in src/core/)`;
}

/** Every import between src/ files: { from, to, spec, file } with from/to partOf results (to is 'vscode' for the module). */
export function importEdges(srcDir) {
  const edges = [];
  for (const file of walk(srcDir)) {
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const from = partOf(srcDir, file);
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec === 'vscode') {
        edges.push({ from, to: 'vscode', spec, file });
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (relative(srcDir, target).startsWith('..')) continue;
      const path = existsSync(target) && statSync(target).isDirectory() ? join(target, 'index.ts') : target.endsWith('.ts') ? target : `${target}.ts`;
      edges.push({ from, to: partOf(srcDir, path), spec, file });
    }
  }
  return edges;
}

/** Cycles between parts (strongly connected groups of more than one node), by Tarjan's algorithm. */
export function folderCycles(edges) {
  const graph = new Map();
  for (const e of edges) {
    if (e.to === 'vscode' || e.from.node === e.to.node) continue;
    if (!graph.has(e.from.node)) graph.set(e.from.node, new Set());
    if (!graph.has(e.to.node)) graph.set(e.to.node, new Set());
    graph.get(e.from.node).add(e.to.node);
  }
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/**
 * Files of src/ that share a base name, as "name: path, path" lines. A file's name says what it
 * holds without its folder: two `errors.ts` make every stack trace, tab and search ambiguous.
 */
export function sameBaseNames(srcDir) {
  const byName = new Map();
  for (const file of walk(srcDir)) {
    const name = file.split(/[\\/]/).pop();
    byName.set(name, [...(byName.get(name) ?? []), relative(dirname(srcDir), file).split('\\').join('/')]);
  }
  return [...byName].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.sort().join(', ')}`);
}

/** Problems with the layering of `srcDir` (empty when the arrows all point one way) and with its file names. */
export function checkLayers(srcDir) {
  const edges = importEdges(srcDir);
  const problems = sameBaseNames(srcDir).map((s) => `two files of src/ share a base name (${s}): name each file for what it holds, without its folder`);
  for (const folder of new Set(edges.map((e) => e.from.folder))) {
    if (folder !== 'extension.ts' && !ALLOWED[folder])
      problems.push(`src/${folder} is not in tools/lint/layers.mjs: add it to FOLDERS and ALLOWED (which folders it may import, and who may import it)`);
  }
  for (const e of edges) {
    const where = relative(dirname(srcDir), e.file).split('\\').join('/');
    if (e.to === 'vscode') {
      if (!e.from.ui) problems.push(`${where}: imports vscode; only ${VSCODE_PARTS} may`);
      continue;
    }
    if (!ALLOWED[e.from.folder] && e.from.folder !== 'extension.ts') continue;
    const why = forbidden(e.from, e.to);
    if (why) problems.push(`${where}: imports ${e.spec} (src/${e.to.node}); ${why}`);
  }
  for (const c of folderCycles(edges)) {
    const hops = edges.filter((e) => e.to !== 'vscode' && c.includes(e.from.node) && c.includes(e.to.node) && e.from.node !== e.to.node);
    problems.push(
      `import cycle between folders ${c.map((l) => `src/${l}`).join(', ')}: ${hops.map((e) => `${relative(dirname(srcDir), e.file)} → ${e.spec}`).join('; ')}`,
    );
  }
  return problems;
}
