// Bundles the extension, its lazily loaded parts, the simulator and the tests.
// Usage: node scripts/build.mjs [--watch] [--no-tests] [--meta]
// --meta writes dist/meta.json: per dist file, the source files it contains (to check that no module with state
// ends up in two bundles).
import * as esbuild from 'esbuild';
import { readdirSync, statSync, existsSync, rmSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));

// Files that the activation bundle must not contain: each becomes its own file in
// dist/ and is require()d from there the first time it is needed.
export const lazyEntries = {
  transport: 'src/api/transport.ts',
  sim: 'src/sim/index.ts',
  tfaWebview: 'src/views/account/totpWebview.ts',
  templates: 'src/commands/templates/lazy.ts',
  ssh: 'src/commands/ssh/lazy.ts',
  tfa: 'src/commands/tfa/lazy.ts',
  schemas: 'src/api/schemas.ts',
};
for (const [name, file] of Object.entries(lazyEntries)) {
  if (!existsSync(join(root, file))) delete lazyEntries[name];
}

const lazyByPath = new Map(Object.entries(lazyEntries).map(([name, file]) => [join(root, file), name]));

/** Rewrites imports of lazy entries to `./<name>.js` next to the bundle. */
const lazyExternal = {
  name: 'lazy-external',
  setup(build) {
    build.onResolve({ filter: /^\./ }, async (a) => {
      if (a.pluginData?.lazy) return undefined;
      const r = await build.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, pluginData: { lazy: true } });
      const name = lazyByPath.get(r.path);
      if (name && a.importer && lazyByPath.get(a.importer) !== name) return { path: `./${name}.js`, external: true };
      return undefined;
    });
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
};

function walk(dir, pred) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p, pred) : pred(p) ? [p] : [];
  });
}

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    // For the bench: when VS Code starts and ends evaluating the bundle (ExtensionApi.activationTimestamps).
    banner: { js: 'var __gpuRentalLoadStart=performance.now();' },
    footer: { js: 'var __gpuRentalLoadEnd=performance.now();' },
    external: ['vscode'],
    minify: true,
    metafile: true,
    plugins: [lazyExternal],
  },
  ...Object.entries(lazyEntries).map(([name, file]) => ({
    ...common,
    entryPoints: { [name]: file },
    outdir: 'dist',
    external: ['vscode'],
    minify: true,
    metafile: true,
    plugins: [lazyExternal],
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
      entryPoints: { index: 'test/vscode/suite/index.ts' },
      outdir: 'out/vscode',
      external: ['vscode'],
      sourcemap: 'inline',
    });
  }
}

if (!args.has('--watch')) {
  rmSync(join(root, 'out/unit'), { recursive: true, force: true });
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
  const meta = results[0].metafile;
  if (meta) {
    const size = Object.entries(meta.outputs).find(([k]) => k.endsWith('extension.js'))?.[1].bytes;
    if (args.has('--verbose')) console.log(`dist/extension.js: ${size} bytes`);
  }
} else {
  for (const b of builds) await (await esbuild.context(b)).watch();
  console.log('watching…');
}
