// The .vsix holds what the installed extension reads at run time and nothing else. The list is the
// one `npm run package` packs (vsce's own listFiles, the code behind `npx vsce ls --no-dependencies`),
// read from the tree as built; nothing is built here. What is needed is derived, not listed: the
// bundles the build splits off (scripts/bundles.mjs), every `require("./x.js")` a packaged bundle
// makes, every file package.json names, and every media/ file whose name a built bundle holds (what it loads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { findLazyModules, programs, sharedPackages } from '../../../scripts/bundles.mjs';
import { repoRoot, manifest } from '../repoRoot';

const root = repoRoot();

/** The files vsce packs, as `npx vsce ls --no-dependencies` prints them. */
async function packedFiles(): Promise<string[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const vsce = require(join(root, 'node_modules/@vscode/vsce')) as {
    PackageManager: { None: number };
    listFiles(o: { cwd: string; packageManager: number }): Promise<string[]>;
  };
  return (await vsce.listFiles({ cwd: root, packageManager: vsce.PackageManager.None })).map((f) => f.split('\\').join('/')).sort();
}

/** Every relative file path package.json points at (icons, walkthrough media, the schema). */
function manifestFiles(manifest: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (
        ['icon', 'markdown', 'image', 'svg', 'url', 'path', 'main'].includes(key) &&
        /^\.?\/?[\w-]+(\/[\w.-]+)+$|^[\w-]+\.\w+$/.test(v) &&
        !/^https?:/.test(v)
      )
        out.add(v.replace(/^\.\//, ''));
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'repository' && k !== 'bugs' && k !== 'scripts') walk(x, k);
  };
  walk(manifest, '');
  return [...out].sort();
}

/** Every file under media/ (relative to the repository, `/`-separated). */
function mediaTree(dir = 'media'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? mediaTree(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
}

/**
 * The media/ files the built code loads: those whose name a bundle holds as a string literal
 * (`joinPath(uri, "media", "billing", "spending.css")`, `page(..., { script: "totp.js" })`).
 * Derived from the bundles themselves, so a new stylesheet or script is needed as soon as code loads it.
 */
function mediaLoadedBy(bundles: string[], tree: string[]): string[] {
  return tree.filter((f) => {
    const name = f.slice(f.lastIndexOf('/') + 1);
    return bundles.some((js) => js.includes(`"${name}"`) || js.includes(`'${name}'`));
  });
}

/** `require("./x.js")` of a sibling bundle in a dist file. */
function siblingRequires(js: string): string[] {
  return [...new Set([...js.matchAll(/require\(["']\.\/([\w.-]+\.js)["']\)/g)].map((m) => `dist/${m[1]!}`))].sort();
}

test('siblingRequires finds the lazily required bundles and nothing else', () => {
  assert.deepEqual(siblingRequires('a=require("./client.js");b=require(\'./sshHost.js\');c=require("vscode");d=require("../x.js");e=require("./client.js")'), [
    'dist/client.js',
    'dist/sshHost.js',
  ]);
});

test('mediaLoadedBy takes the media files a bundle names as a string, and no other', () => {
  const tree = ['media/billing/spending.css', 'media/tfa/totp.js', 'media/icon.svg'];
  assert.deepEqual(mediaLoadedBy(['u=joinPath(e,"media","billing","spending.css");'], tree), ['media/billing/spending.css']);
  assert.deepEqual(mediaLoadedBy(["page(w,{script:'totp.js'})"], tree), ['media/tfa/totp.js']);
  assert.deepEqual(mediaLoadedBy(['// icon.svg is the source of icon.png'], tree), []);
});

test('every lazily loaded bundle loads: nothing in it requires a file the bundler could not follow', () => {
  // A UMD package requires its own parts through its factory's parameter, which esbuild cannot
  // follow: the bundle then fails at load with "Cannot find module './impl/…'" (jsonc-parser's did).
  assert.ok(existsSync(join(root, 'dist/extension.js')), 'dist/ is not built: run `node scripts/build.mjs` first');
  const bundles = readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.js') && !Object.keys(programs).includes(f.slice(0, -3)));
  const script = `require(${JSON.stringify(join(root, 'bench/vscodeStub.cjs'))});const failed=[];for (const f of ${JSON.stringify(bundles)}) { try { require(${JSON.stringify(join(root, 'dist'))} + '/' + f); } catch (e) { failed.push(f + ': ' + e.message.split('\\n')[0]); } } console.log(JSON.stringify(failed));`;
  const out = execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.deepEqual(
    JSON.parse(out.trim().split('\n').pop()!),
    [],
    "these bundles fail to load (bundle the package's ES module build: scripts/build.mjs, bundledPackages)",
  );
});

test('the bundles of the extension share one @vscode/l10n (dist/l10n.js, the copy activation configures); only the separate processes keep their own', () => {
  assert.ok(existsSync(join(root, 'dist/extension.js')), 'dist/ is not built: run `node scripts/build.mjs` first');
  // A string of @vscode/l10n's own source (its file reader), which minifying keeps.
  const marker = readFileSync(join(root, 'node_modules/@vscode/l10n/dist/main.js'), 'utf8').includes('Unsupported protocol')
    ? 'Unsupported protocol'
    : assert.fail('marker gone');
  const copies = readdirSync(join(root, 'dist'))
    .filter((f) => f.endsWith('.js') && readFileSync(join(root, 'dist', f), 'utf8').includes(marker))
    .map((f) => f.slice(0, -3))
    .sort();
  assert.deepEqual(copies, [...Object.keys(sharedPackages), ...Object.keys(programs).filter((p) => p !== 'sim')].sort());
  assert.match(readFileSync(join(root, 'dist/extension.js'), 'utf8'), /require\("\.\/l10n\.js"\)/);
});

test('manifestFiles reads the icons, walkthrough media and schema package.json names, not its links', () => {
  const m = {
    icon: 'media/icon.png',
    main: './dist/extension.js',
    repository: { url: 'https://x/y.git' },
    contributes: {
      jsonValidation: [{ url: './schemas/t.json' }, { url: 'https://json.schemastore.org/x' }],
      walkthroughs: [{ steps: [{ media: { markdown: 'media/w/a.md' } }] }],
    },
  };
  assert.deepEqual(manifestFiles(m), ['dist/extension.js', 'media/icon.png', 'media/w/a.md', 'schemas/t.json']);
});

test('the .vsix holds every file the extension reads at run time, and nothing else', async () => {
  assert.ok(existsSync(join(root, 'dist/extension.js')), 'dist/ is not built: run `node scripts/build.mjs` first');
  const files = await packedFiles();
  const pkg = manifest();
  const lazy = await findLazyModules(root, 'src/extension.ts', { external: ['vscode', 'cpu-features', '*.node'], loader: { '.sh': 'text' } });
  const bundles = [...new Set(['extension', ...lazy.keys(), ...Object.keys(programs), ...Object.keys(sharedPackages)])].map((n) => `dist/${n}.js`);
  const code = readdirSync(join(root, 'dist'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(root, 'dist', f), 'utf8'));
  const needed = new Set([
    ...bundles,
    ...manifestFiles(pkg),
    ...mediaLoadedBy(code, mediaTree()),
    'package.json',
    'package.nls.json',
    'l10n/bundle.l10n.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
  ]);
  for (const f of files.filter((x) => /^dist\/[^/]+\.js$/.test(x))) for (const r of siblingRequires(readFileSync(join(root, f), 'utf8'))) needed.add(r);
  const missing = [...needed].filter((f) => !files.includes(f)).sort();
  const extra = files.filter((f) => !needed.has(f));
  assert.deepEqual(missing, [], `the .vsix lacks files the extension loads (check .vscodeignore): ${missing.join(', ')}`);
  assert.deepEqual(extra, [], `the .vsix holds files nothing loads at run time (leave them out in .vscodeignore): ${extra.join(', ')}`);
  for (const f of files) assert.doesNotMatch(f, /\.map$|^(src|test|out|docs|bench|scripts|tools|node_modules)\//, f);
});
