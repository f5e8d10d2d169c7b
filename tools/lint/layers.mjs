// The layer rules, in one place: which src/ folder may import which. Read by the ESLint config
// (no-restricted-imports, one file at a time) and by checkLayers() below, which sees the whole
// folder graph: every import, export-from, type import and import() of src/, so it also finds
// what one-file rules cannot (a dynamic import across a boundary, a cycle between folders).
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The folders of src/, bottom layer first. */
export const FOLDERS = ['api', 'sim', 'ssh', 'model', 'guard', 'account', 'templates', 'host', 'views', 'commands'];

/** What each folder may import (besides itself). src/extension.ts may import host, views and commands. */
export const ALLOWED = {
  api: [],
  sim: [],
  ssh: ['api'],
  model: ['ssh', 'api'],
  guard: ['model', 'api'],
  account: ['model', 'api'],
  templates: ['guard', 'ssh', 'model', 'api'],
  host: ['templates', 'guard', 'ssh', 'account', 'model', 'api'],
  views: ['host', 'templates', 'guard', 'ssh', 'account', 'model', 'api'],
  commands: ['views', 'host', 'sim', 'templates', 'guard', 'ssh', 'account', 'model', 'api'],
  'extension.ts': ['host', 'views', 'commands'],
};

/** The only places that import `vscode`. */
export const USES_VSCODE = ['extension.ts', 'host', 'views', 'commands'];

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(=])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** `api`, `views`, … or `extension.ts` for a file under src/. */
function layerOf(srcDir, file) {
  const rel = relative(srcDir, file).split('\\').join('/');
  return rel.includes('/') ? rel.split('/')[0] : rel;
}

/** Every import between src/ files: { from, to, spec, file }, with from/to their layers. */
export function importEdges(srcDir) {
  const edges = [];
  for (const file of walk(srcDir)) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      const from = layerOf(srcDir, file);
      if (spec === 'vscode') {
        edges.push({ from, to: 'vscode', spec, file });
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (relative(srcDir, target).startsWith('..')) continue;
      edges.push({ from, to: layerOf(srcDir, existsSync(target) && statSync(target).isDirectory() ? join(target, 'index.ts') : `${target}.ts`), spec, file });
    }
  }
  return edges;
}

/** Folder cycles (strongly connected groups of more than one layer), by Tarjan's algorithm. */
export function folderCycles(edges) {
  const graph = new Map();
  for (const e of edges) {
    if (e.from === e.to || e.to === 'vscode') continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    if (!graph.has(e.to)) graph.set(e.to, new Set());
    graph.get(e.from).add(e.to);
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

/** Problems with the layering of `srcDir` (empty when the arrows all point one way). */
export function checkLayers(srcDir) {
  const edges = importEdges(srcDir);
  const problems = [];
  for (const layer of new Set(edges.map((e) => e.from))) {
    if (!ALLOWED[layer]) problems.push(`src/${layer} is not in tools/lint/layers.mjs: add it to FOLDERS and ALLOWED (which folders it may import, and who may import it)`);
  }
  for (const e of edges) {
    const where = relative(dirname(srcDir), e.file).split('\\').join('/');
    if (e.to === 'vscode') {
      if (!USES_VSCODE.includes(e.from)) problems.push(`${where}: imports vscode; only ${USES_VSCODE.join(', ')} may`);
    } else if (e.from !== e.to && ALLOWED[e.from] && !ALLOWED[e.from].includes(e.to)) {
      problems.push(`${where}: imports ${e.spec} (src/${e.to}); src/${e.from} may import only ${ALLOWED[e.from].join(', ') || 'itself'}`);
    }
  }
  for (const c of folderCycles(edges)) {
    const hops = edges.filter((e) => c.includes(e.from) && c.includes(e.to) && e.from !== e.to);
    problems.push(`import cycle between folders ${c.map((l) => `src/${l}`).join(', ')}: ${hops.map((e) => `${relative(dirname(srcDir), e.file)} → ${e.spec}`).join('; ')}`);
  }
  return problems;
}
