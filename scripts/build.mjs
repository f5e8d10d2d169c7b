// Bundles the extension, its lazily loaded parts (found from the import() sites), the simulator and the tests.
// Usage: node scripts/build.mjs [--watch] [--no-tests] [--meta] [--instrumented]
// --meta writes dist/meta.json: per dist file, the source files it contains (to check that no module with state
// ends up in two bundles).
// --instrumented: the sources are a mutation run's instrumented copy (tools/mutate): its mutant
// switches keep code that esbuild would otherwise drop, so a module can land in bundles it is not in, and the
// check that no module with state is in two bundles would refuse the build for the copy only.
import * as esbuild from 'esbuild';
import { findLazyModules, programs, sharedPackages, statefulCopies } from './bundles.mjs';
import { readdirSync, readFileSync, statSync, existsSync, rmSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));

// The bundle split: every import() of a src/ module is a lazily loaded bundle (scripts/bundles.mjs).

const lazyModules = await findLazyModules(root, 'src/extension.ts', { external: ['vscode', 'cpu-features', '*.node'], loader: { '.sh': 'text' } });
for (const [name, file] of Object.entries(programs)) {
  const path = join(root, file);
  if (lazyModules.has(name) && lazyModules.get(name) !== path) throw new Error(`scripts/build.mjs: dist/${name}.js is both a program and a lazy bundle`);
  if (existsSync(path)) lazyModules.set(name, path);
}
export const lazyEntries = Object.fromEntries([...lazyModules].map(([name, file]) => [name, relative(root, file)]));
const lazyByPath = new Map([...lazyModules].map(([name, file]) => [file, name]));

/** Rewrites imports of a lazy module (except from its own bundle) to `./<name>.js` next to the bundle. */
const lazyExternal = (self) => ({
  name: 'lazy-external',
  setup(build) {
    build.onResolve({ filter: /^\./ }, async (a) => {
      if (a.pluginData?.lazy) return undefined;
      const r = await build.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, pluginData: { lazy: true } });
      const name = lazyByPath.get(r.path);
      if (name && r.path !== self) return { path: `./${name}.js`, external: true };
      return undefined;
    });
  },
});

/** Rewrites imports of a shared package (scripts/bundles.mjs) to `./<name>.js` next to the bundle. */
const sharedExternal = {
  name: 'shared-external',
  setup(build) {
    for (const [name, pkg] of Object.entries(sharedPackages)) {
      build.onResolve({ filter: new RegExp(`^${pkg.replace(/[/.]/g, '\\$&')}$`) }, () => ({ path: `./${name}.js`, external: true, sideEffects: false }));
    }
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: root,
  // The on-instance idle guard (src/guard/watchdog.sh) ships as text inside the bundle.
  loader: { '.sh': 'text' },
  // ssh2 (the simulator's SSH servers, key generation without ssh-keygen) tries optional native
  // speed-ups inside try/catch and falls back to pure JavaScript: leave those requires unresolved.
  external: ['cpu-features', '*.node'],
};

// jsonc-parser's "main" is a UMD build whose factory requires './impl/…' through its own
// `require` parameter, which a bundler cannot follow (the bundle would fail with "Cannot find
// module './impl/format'"): bundles take its ES module build. The unit tests load the package
// from node_modules as Node does, where the UMD build works.
const bundledPackages = { alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' } };

function walk(dir, pred) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p, pred) : pred(p) ? [p] : [];
  });
}

/**
 * The MCP server (src/agent/mcpServer.ts) gives the SDK's Server its own JSON Schema validator (it
 * asks no elicitation), so the SDK's default Ajv provider is never constructed: it is left out of
 * dist/mcp.js (about 130 KB of Ajv, its formats and fast-uri) by a stand-in that says so.
 */
const withoutAjv = {
  name: 'mcp-without-ajv',
  setup(build) {
    build.onLoad({ filter: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](?:cjs|esm)[\\/]validation[\\/]ajv-provider\.js$/ }, () => ({
      contents: 'export class AjvJsonSchemaValidator { constructor() { throw new Error("dist/mcp.js is built without Ajv: pass jsonSchemaValidator"); } }',
      loader: 'js',
    }));
  },
};

const builds = [
  {
    ...common,
    ...bundledPackages,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    // For the bench: when VS Code starts and ends evaluating the bundle (ExtensionApi.activationTimestamps).
    banner: { js: 'var __gpuRentalLoadStart=performance.now();' },
    footer: { js: 'var __gpuRentalLoadEnd=performance.now();' },
    external: [...common.external, 'vscode'],
    minify: true,
    metafile: true,
    plugins: [lazyExternal(undefined), sharedExternal],
  },
  ...Object.entries(sharedPackages).map(([name, pkg]) => ({
    ...common,
    entryPoints: { [name]: pkg },
    outdir: 'dist',
    minify: true,
    metafile: true,
  })),
  ...Object.entries(lazyEntries).map(([name, file]) => ({
    ...common,
    ...bundledPackages,
    entryPoints: { [name]: file },
    outdir: 'dist',
    external: [...common.external, 'vscode'],
    minify: true,
    // ssh2 (in the simulator and the key generator) tells its objects apart by class name
    // (`constructor.name === 'Session'`); renamed classes crashed the simulator when a client
    // vanished while a session opened.
    keepNames: name === 'sim' || name === 'keygen',
    metafile: true,
    plugins: [lazyExternal(join(root, file)), ...(name in programs ? [] : [sharedExternal]), ...(name === 'mcp' ? [withoutAjv] : [])],
    // The MCP server tells its clients the extension's version.
    ...(name === 'mcp' ? { define: { GPU_RENTAL_VERSION: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version) } } : {}),
  })),
];

if (!args.has('--no-tests')) {
  const unit = walk(join(root, 'test/unit'), (p) => p.endsWith('.test.ts'));
  if (unit.length) {
    builds.push({
      ...common,
      entryPoints: unit.map((p) => relative(root, p)),
      outdir: 'out/unit',
      outbase: 'test/unit',
      packages: 'external',
      sourcemap: 'inline',
    });
  }
  if (existsSync(join(root, 'test/vscode/suite/index.ts'))) {
    builds.push({
      ...common,
      ...bundledPackages,
      entryPoints: { index: 'test/vscode/suite/index.ts' },
      outdir: 'out/vscode',
      external: [...common.external, 'vscode'],
      sourcemap: 'inline',
    });
  }
}

if (!args.has('--watch')) {
  // Stale test files go with a test build only: `npm run package` (--no-tests) leaves a running unit tier alone.
  if (!args.has('--no-tests')) rmSync(join(root, 'out/unit'), { recursive: true, force: true });
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  if (args.has('--meta')) {
    const { writeFileSync } = await import('node:fs');
    const outputs = {};
    for (const r of results) {
      for (const [file, o] of Object.entries(r.metafile?.outputs ?? {})) {
        if (!file.startsWith('dist/') || file.endsWith('.map')) continue;
        outputs[file] = { bytes: o.bytes, inputs: Object.fromEntries(Object.entries(o.inputs).map(([k, v]) => [k, v.bytesInOutput])) };
      }
    }
    writeFileSync(join(root, 'dist/meta.json'), JSON.stringify({ outputs }, null, 1));
  }
  // Bundles an earlier build made and this one no longer does (a renamed or merged lazy module) would
  // otherwise stay in dist/ and be packed into the .vsix: remove them.
  const made = new Set(results.flatMap((r) => Object.keys(r.metafile?.outputs ?? {})));
  for (const name of readdirSync(join(root, 'dist'))) {
    if (/\.js(\.map)?$/.test(name) && !made.has(`dist/${name}`)) rmSync(join(root, 'dist', name), { force: true });
  }
  // A module with state (a top-level `let`, or a Map/Set made at load) must exist once: in two
  // bundles each copy has its own. Make it the lazy boundary (import() it) or move the state.
  const copies = args.has('--instrumented')
    ? []
    : statefulCopies(
        root,
        results.map((r) => r.metafile),
      );
  if (copies.length) {
    for (const [src, outs] of copies) console.error(`scripts/build.mjs: ${src} keeps module state but is in ${outs.join(', ')}`);
    process.exit(1);
  }
  const meta = results[0].metafile;
  if (meta) {
    const size = Object.entries(meta.outputs).find(([k]) => k.endsWith('extension.js'))?.[1].bytes;
    if (args.has('--verbose')) console.log(`dist/extension.js: ${size} bytes`);
  }
} else {
  for (const b of builds) await (await esbuild.context(b)).watch();
  console.log('watching…');
}
