// `npm test`: build, typecheck, lint, unit tests, the real-VS-Code tier, the demo check, then the bundle-size check. Fails when any tier
// fails or a test tier runs no test; ends with one overall `N passed, N failed` line.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

/** Runs a command with output streamed through; resolves { code, out } (out = stdout text). */
function run(cmd, args, { env, timeoutS = 600 } = {}) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env }, detached: true });
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
      process.stdout.write(d);
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
  r.seconds = Math.round((Date.now() - t0) / 100) / 10;
  tiers.push({ name, ...r });
  return r.ok;
}

let ok = await step('build', async () => ({ ok: (await run(process.execPath, ['scripts/build.mjs'])).code === 0 }));
if (ok) {
  await step('typecheck', async () => ({ ok: (await run(bin('tsc'), ['-p', '.', '--noEmit'])).code === 0 }));
  await step('lint (eslint + layer rules + folder cycles)', async () => ({ ok: (await run(process.execPath, ['scripts/lint.mjs'])).code === 0 }));

  await step('unit tests (node --test out/unit/)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-unit-'));
    const tap = join(dir, 'unit.tap');
    const r = await run(process.execPath, [
      '--test',
      '--test-timeout=60000',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      'out/unit/',
    ], { timeoutS: 300 });
    let text = '';
    try {
      text = readFileSync(tap, 'utf8');
    } catch {}
    rmSync(dir, { recursive: true, force: true });
    const num = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const passed = num('pass');
    const failed = num('fail') + num('cancelled');
    return { ok: r.code === 0 && failed === 0 && passed > 0, passed, failed, empty: passed + failed === 0 };
  });

  await step('VS Code integration tests (code-server 4.100.3)', async () => {
    const r = await run(process.execPath, ['test/vscode/runner.mjs'], { timeoutS: 540 });
    const m = [...r.out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
    const passed = Number(m?.[1] ?? 0);
    const failed = Number(m?.[2] ?? (r.code === 0 ? 0 : 1));
    return { ok: r.code === 0 && failed === 0 && passed > 0, passed, failed, empty: passed + failed === 0 };
  });

  await step('demo check (npm run demo -- --screenshot screenshots/demo.png)', async () => {
    const r = await run(process.execPath, ['scripts/demo.mjs', '--screenshot', 'screenshots/demo.png'], { timeoutS: 240 });
    const ok = r.code === 0 && /demo check passed/.test(r.out);
    return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  });

  // Issue #7: a stat of the bundle the build stage made, so it costs nothing and cannot flake.
  await step('bundle size (npm run bench -- --quick --no-build)', async () => {
    const ok = (await run(process.execPath, ['bench/run.mjs', '--quick', '--no-build'], { timeoutS: 60 })).code === 0;
    return { ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  });
}

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
const allOk = tiers.length === 7 && tiers.every((t) => t.ok);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(allOk ? 0 : 1);
