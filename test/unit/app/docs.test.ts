// The docs a user reads stay short and stay connected: README.md (also the Marketplace page) opens
// with the two set-up commands and stays under 200 lines, every relative link and picture in the
// docs points at a file that exists (and a heading that exists), and package.json carries what the
// Marketplace needs (repository, icon) so `npm run package` rewrites README's links against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { repoRoot, manifest } from '../repoRoot';

const root = repoRoot();
/** The walkthrough's step descriptions (Markdown links to the docs), read as one more page. */
const WALKTHROUGH = 'package.json#walkthroughs';
const read = (file: string) =>
  file === WALKTHROUGH
    ? manifest<{ contributes: { walkthroughs: Array<{ steps: Array<{ description: string }> }> } }>()
        .contributes.walkthroughs.flatMap((w) => w.steps.map((s) => s.description))
        .join('\n\n')
    : readFileSync(join(root, file), 'utf8');

/** Every Markdown file a reader reaches from README: README, docs/, CONTRIBUTING, the demo workspace's README, the walkthrough pages. */
function markdownFiles(): string[] {
  const inDir = (dir: string) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `${dir}/${f}`);
  return ['README.md', 'CONTRIBUTING.md', 'demo-workspace/README.md', ...inDir('docs'), ...inDir('media/walkthrough'), WALKTHROUGH];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2… */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/`/g, '')
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** The targets of the Markdown links and images in `markdown` (outside code), e.g. `docs/x.md#y`, `images/a.png`, `https://…`. */
export function linkTargets(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

test('README.md opens with the two set-up commands, demo then tests, and stays under 200 lines', () => {
  const readme = read('README.md');
  const lines = readme.split('\n');
  assert.ok(lines.length <= 200, `README.md has ${lines.length} lines; move detail to a docs/ page`);
  const firstBlock = /```\w*\n([\s\S]*?)```/.exec(readme);
  assert.ok(firstBlock && readme.indexOf(firstBlock[0]) < readme.indexOf('\n## '), 'README must open with the set-up commands, before its first section');
  const commands = firstBlock[1]!
    .trim()
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim());
  assert.deepEqual(commands, ['npm ci && npm run demo', 'npm ci && npm test']);
  const scripts = (manifest() as { scripts: Record<string, string> }).scripts;
  for (const s of ['demo', 'test', 'package']) assert.ok(scripts[s], `README relies on \`npm run ${s}\`, which package.json does not define`);
  assert.match(readme, /npm ci && npm run package\n/, 'README must give the packaging command');
  const { name, version } = manifest() as { name: string; version: string };
  assert.ok(
    readme.includes(`code --install-extension ${name}-${version}.vsix`),
    `README's install command must name the .vsix npm run package writes: ${name}-${version}.vsix`,
  );
});

test('every relative link and picture in the docs points at a file (and a heading) that exists', () => {
  const problems: string[] = [];
  for (const file of markdownFiles()) {
    for (const target of linkTargets(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
      if (resolved.startsWith('..') || !existsSync(join(root, resolved))) {
        problems.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor))
        problems.push(`${file}: ${target} (no such heading in ${resolved})`);
    }
  }
  assert.deepEqual(problems, []);
});

test('links to the repository (the walkthrough pages, which ship without docs/) name files and headings that exist', () => {
  const repo = (manifest() as { repository: { url: string } }).repository.url.replace(/\.git$/, '');
  const problems: string[] = [];
  let count = 0;
  for (const file of markdownFiles()) {
    for (const target of linkTargets(read(file))) {
      const m = new RegExp(`^${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/blob/HEAD/([^#]+)(?:#(.*))?$`).exec(target);
      if (!m) continue;
      count++;
      if (!existsSync(join(root, m[1]!))) problems.push(`${file}: ${target} (no such file)`);
      else if (m[2] && !headingAnchors(read(m[1]!)).has(m[2])) problems.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.ok(count >= 6, `expected the walkthrough pages to link the docs (found ${count} links)`);
  assert.deepEqual(problems, []);
});

test('README links every docs/ page, and every docs/ page leads back', () => {
  const readme = read('README.md');
  const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  assert.deepEqual(
    pages.filter((p) => !readme.includes(`](docs/${p})`)),
    [],
    'README does not link these docs pages',
  );
  assert.deepEqual(
    pages.filter((p) => !read(`docs/${p}`).includes('](../README.md)')),
    [],
    'these docs pages have no link back to README',
  );
});

test('the link checker understands headings and links as GitHub does', () => {
  assert.deepEqual(
    [...headingAnchors('# A b\n## Two-factor authentication\n```\n# not a heading\n```\n## `gpuRental.x` (note)\n## A b')],
    ['a-b', 'two-factor-authentication', 'gpurentalx-note', 'a-b-1'],
  );
  assert.deepEqual(linkTargets('[a](docs/a.md#x) ![p](images/p.png "t") `[no](code.md)` [u](https://x.y/z)'), ['docs/a.md#x', 'images/p.png', 'https://x.y/z']);
});

test('package.json has what the Marketplace and Open VSX need: repository, homepage, bugs, a 128×128 PNG icon, categories, keywords', () => {
  const pkg = manifest() as {
    repository?: { url?: string };
    homepage?: string;
    bugs?: { url?: string };
    icon?: string;
    categories?: string[];
    keywords?: string[];
  };
  const repo = /^https:\/\/github\.com\/([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(pkg.repository?.url ?? '')?.[1];
  assert.ok(repo, `repository.url must be a GitHub https URL (vsce rewrites README's relative links against it): ${pkg.repository?.url}`);
  assert.ok(pkg.homepage?.startsWith(`https://github.com/${repo}`), 'homepage');
  assert.equal(pkg.bugs?.url, `https://github.com/${repo}/issues`);
  assert.ok(pkg.categories?.length && pkg.keywords?.length, 'categories and keywords');
  const png = readFileSync(join(root, pkg.icon ?? '(no icon)'));
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'the icon must be a PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'the icon must be 128×128');
  const ignore = read('.vscodeignore');
  assert.match(ignore, /^!README\.md$/m, 'the .vsix must carry README.md');
});
