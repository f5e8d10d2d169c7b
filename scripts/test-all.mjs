// `npm test`: build, typecheck, lint, unit tests, the real-VS-Code tier, the demo check, the bundle-size check, the .vsix, the
// .vsix smoke tier on each version of SMOKE_VERSIONS (scripts/code-server.mjs), then the check that the real home was not touched. Fails when any tier fails or a test tier runs no test; ends with one overall
// `N passed, N failed` line. Every tier runs with HOME and the XDG folders in a temporary directory (scripts/test-home.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { diffFingerprints, homeFingerprint, tempHome } from './test-home.mjs';
import { CODE_SERVER_VERSION, SMOKE_VERSIONS } from './code-server.mjs';
import { failedTests, skippedTests } from './tapReport.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

// The real ~/.ssh and VS Code user settings as they are before any tier runs; compared at the end.
const realHomeBefore = homeFingerprint();
const home = tempHome('gpu-rental-test-home-');
process.on('exit', () => home.cleanup());

/**
 * Runs a command with output streamed through; resolves { code, out } (out = stdout text, and stderr's with `withStderr`).
 * `held`: nothing is streamed (stderr is kept too); the caller prints `out` when the tier's turn comes.
 */
function run(cmd, args, { env, timeoutS = 600, withStderr = false, held = false } = {}) {
  withStderr ||= held;
  return new Promise((res) => {
    const child = spawn(cmd, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', withStderr ? 'pipe' : 'inherit'],
      env: { ...process.env, ...home.env, ...env },
      detached: true,
    });
    // A hung tier (e.g. a test that leaves a server open) must not hang CI: end its whole group.
    const timer = setTimeout(() => {
      process.stdout.write(`\n${cmd} ${args.join(' ')}: no result after ${timeoutS} s, stopping it\n`);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutS * 1000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (!held) process.stdout.write(d);
    });
    child.stderr?.on('data', (d) => {
      out += d;
      if (!held) process.stderr.write(d);
    });
    const onSig = () => {
      try {
        process.kill(-child.pid, 'SIGINT');
      } catch {}
    };
    process.once('SIGINT', onSig);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', onSig);
      res({ code: code ?? (signal ? 1 : 0), out });
    });
  });
}

const tiers = [];
function header(name) {
  process.stdout.write(`\n━━ ${name} ━━\n`);
}

async function step(name, fn) {
  header(name);
  const t0 = Date.now();
  const r = await fn();
  r.seconds ??= Math.round((Date.now() - t0) / 100) / 10; // a tier that ran beside another says its own time
  tiers.push({ name, ...r });
  return r.ok;
}

// The code-server versions the VS Code tier and the smoke tier need are installed in the background from the
// start (mostly network and disk, one to two minutes each when not cached), one after the other, so they overlap
// the build and the unit tier. A tier that needs one waits for its install first.
const installs = new Map();
let installChain = Promise.resolve();
for (const v of new Set([CODE_SERVER_VERSION, ...SMOKE_VERSIONS])) {
  installChain = installChain.then(
    () =>
      new Promise((res) => {
        const child = spawn(process.execPath, ['scripts/code-server.mjs', '--install', '--version', v], {
          cwd: root,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, ...home.env },
        });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('error', (e) => res({ code: 1, err: String(e) }));
        child.on('close', (code) => res({ code, err }));
      }),
  );
  installs.set(v, installChain);
}

let ok = await step('build', async () => ({ ok: (await run(process.execPath, ['scripts/build.mjs'])).code === 0 }));
if (ok) {
  await step('typecheck', async () => ({ ok: (await run(bin('tsc'), ['-p', '.', '--noEmit'])).code === 0 }));
  // Lint keeps one core busy for about half a minute while the unit tier mostly waits on the simulator,
  // SSH and the watchdog: it runs beside the unit tier and its output is printed after it.
  const t0Lint = Date.now();
  const lint = run(process.execPath, ['scripts/lint.mjs'], { held: true }).then((r) => ({ ...r, seconds: Math.round((Date.now() - t0Lint) / 100) / 10 }));

  await step('unit tests (node --test out/unit/)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-unit-'));
    const tap = join(dir, 'unit.tap');
    const r = await run(
      process.execPath,
      [
        '--test',
        '--test-timeout=180000',
        // Node's default on 2 cores is one file at a time; most files wait on the simulator, SSH and
        // the watchdog's ticks rather than on the CPU, so three at once take about 40 % less time.
        '--test-concurrency=3',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tap}`,
        'out/unit/',
      ],
      { timeoutS: 600 },
    );
    let text = '';
    try {
      text = readFileSync(tap, 'utf8');
    } catch {}
    rmSync(dir, { recursive: true, force: true });
    const num = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const passed = num('pass');
    const failed = num('fail') + num('cancelled');
    return {
      ok: r.code === 0 && failed === 0 && passed > 0,
      passed,
      failed,
      empty: passed + failed === 0,
      skipped: skippedTests(text),
      failures: failedTests(text),
    };
  });

  await step('lint (eslint + layer rules + folder cycles; ran beside the unit tier)', async () => {
    const r = await lint;
    process.stdout.write(r.out);
    return { ok: r.code === 0, seconds: r.seconds };
  });

  await step(`VS Code integration tests (code-server ${CODE_SERVER_VERSION})`, async () => {
    await installs.get(CODE_SERVER_VERSION); // a failed install fails the tier with the installer's message
    const r = await run(process.execPath, ['test/vscode/runner.mjs'], { timeoutS: 960 });
    const m = [...r.out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
    const passed = Number(m?.[1] ?? 0);
    const failed = Number(m?.[2] ?? (r.code === 0 ? 0 : 1));
    return { ok: r.code === 0 && failed === 0 && passed > 0, passed, failed, empty: passed + failed === 0 };
  });

  // Issue #7: a stat of the bundle the build stage made, so it costs nothing and cannot flake.
  await step('bundle size (npm run bench -- --quick --no-build)', async () => {
    const ok = (await run(process.execPath, ['bench/run.mjs', '--quick', '--no-build'], { timeoutS: 60 })).code === 0;
    return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  });

  // The documented packaging command (`npm run package`) must give a .vsix without a single warning.
  // The .vsix is kept for the smoke tier below, which installs it as a user would.
  const vsixDir = mkdtempSync(join(tmpdir(), 'gpu-rental-vsix-'));
  process.on('exit', () => rmSync(vsixDir, { recursive: true, force: true }));
  const vsix = join(vsixDir, 'gpu-rental.vsix');
  const packaged = await step('package (vsce package: a .vsix, no warning)', async () => {
    const r = await run(bin('vsce'), ['package', '--no-dependencies', '--out', vsix], { timeoutS: 180, withStderr: true });
    const warned = /\bWARNING\b|\bwarn\b/i.test(r.out);
    const ok = r.code === 0 && existsSync(vsix) && !warned;
    if (warned) process.stdout.write('vsce printed a warning: packaging must be clean\n');
    return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  });

  await step('demo check (npm run demo -- --screenshot screenshots/demo.png)', async () => {
    const r = await run(process.execPath, ['scripts/demo.mjs', '--screenshot', 'screenshots/demo.png', ...(packaged ? ['--vsix', vsix] : [])], {
      timeoutS: 240,
    });
    const ok = r.code === 0 && /demo check passed/.test(r.out);
    return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  });

  // Issue #25: the packaged extension installed with --install-extension and driven through the UI, per version.
  for (const v of SMOKE_VERSIONS) {
    await step(`.vsix smoke (code-server ${v})`, async () => {
      const inst = await installs.get(v);
      if (inst.code !== 0) {
        process.stdout.write(`installing code-server ${v} failed:\n${inst.err.split('\n').slice(-15).join('\n')}\n`);
        return { ok: false, passed: 0, failed: 1 };
      }
      if (!packaged) {
        process.stdout.write('no .vsix: the package tier failed\n');
        return { ok: false, passed: 0, failed: 1 };
      }
      const r = await run(process.execPath, ['test/vsix/smoke.mjs', '--version', v, '--vsix', vsix], { timeoutS: 480 });
      const m = [...r.out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
      const passed = Number(m?.[1] ?? 0);
      const failed = Number(m?.[2] ?? (r.code === 0 ? 0 : 1));
      return { ok: r.code === 0 && failed === 0 && passed > 0, passed, failed, empty: passed + failed === 0 };
    });
  }
}

// Last: nothing above may have written into the real home (tests run under a temporary HOME; this
// catches a writer that escapes it, e.g. by reading the passwd entry or a hard-coded path).
await step('real home untouched (~/.ssh, VS Code user settings)', async () => {
  const changed = diffFingerprints(realHomeBefore, homeFingerprint());
  for (const line of changed) process.stdout.write(`the test run changed the real home: ${line}\n`);
  const ok = changed.length === 0;
  return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
});

header('summary');
let passed = 0;
let failed = 0;
for (const t of tiers) {
  const counts = t.passed === undefined ? '' : `: ${t.passed} passed, ${t.failed} failed${t.empty ? ' (no tests ran)' : ''}`;
  process.stdout.write(`  ${t.ok ? '✓' : '✗'} ${t.name}${counts} (${t.seconds} s)\n`);
  passed += t.passed ?? 0;
  failed += t.failed ?? 0;
  if (!t.ok && t.passed === undefined) failed += 1; // a failed build/typecheck counts as a failure
}
const skipped = tiers.flatMap((t) => (t.skipped ?? []).map((name) => `${t.name}: ${name}`));
if (skipped.length) {
  process.stdout.write(`  ${skipped.length} skipped (a tool is missing here; CI=true fails them instead):\n`);
  for (const s of skipped) process.stdout.write(`    - ${s}\n`);
}
const failures = tiers.flatMap((t) => (t.failures ?? []).map((f) => `${t.name}: ${f}`));
if (failures.length) {
  process.stdout.write(`  failed (from the TAP report):\n`);
  for (const f of failures.slice(0, 20)) process.stdout.write(`    - ${f.slice(0, 600)}\n`);
}
const allOk = tiers.length === 9 + SMOKE_VERSIONS.length && tiers.every((t) => t.ok);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(allOk ? 0 : 1);
