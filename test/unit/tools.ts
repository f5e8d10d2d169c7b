// The system tools some tests drive (OpenSSH, openssl, the shells and linter the idle guard is
// proved with). Locally a test whose tool is missing is skipped, and the closing summary of
// `npm test` names it. In CI (CI=true) a missing tool is a failure that says how to install
// it: there a skip would hide that, say, the tests catching an unquoted SSH path never ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test, type TestContext } from 'node:test';

/** Each tool: how to ask it whether it is there, and the Debian package that has it (.ci/run installs them all). */
const TOOLS = {
  ssh: { probe: ['-V'], pkg: 'openssh-client' },
  'ssh-keygen': { probe: ['-?'], pkg: 'openssh-client' },
  openssl: { probe: ['version'], pkg: 'openssl' },
  dash: { probe: ['-c', 'true'], pkg: 'dash' },
  busybox: { probe: ['true'], pkg: 'busybox' },
  shellcheck: { probe: ['--version'], pkg: 'shellcheck' },
  mpirun: { probe: ['--version'], pkg: 'openmpi-bin' },
  python3: { probe: ['--version'], pkg: 'python3-minimal' },
  // A group member's idle guard serves its verdict with it (python3-minimal lacks it).
  'python3 http.server': { cmd: 'python3', probe: ['-c', 'import http.server'], pkg: 'python3' },
} as const satisfies Record<string, { cmd?: string; probe: readonly string[]; pkg: string }>;
export type Tool = keyof typeof TOOLS;

const known = new Map<Tool, boolean>();
export function hasTool(tool: Tool): boolean {
  let v = known.get(tool);
  if (v === undefined) {
    const t = TOOLS[tool];
    const cmd = 'cmd' in t ? t.cmd : undefined;
    const r = spawnSync(cmd ?? tool, [...t.probe], { stdio: 'ignore' });
    v = r.error === undefined && (cmd === undefined || r.status === 0);
    known.set(tool, v);
  }
  return v;
}

export const inCi = (env: NodeJS.ProcessEnv = process.env): boolean => /^(1|true|yes)$/i.test(env.CI ?? '');

/** What to run to get the missing tools. */
export function installHint(missing: readonly Tool[]): string {
  const pkgs = [...new Set(missing.map((t) => TOOLS[t].pkg))];
  return `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed: apt-get install ${pkgs.join(' ')} (.ci/run installs every tool the tests need)`;
}

const reported = new Set<Tool>();
/**
 * The `skip` option of a test that needs `tools`. All there: false. Missing, locally: the reason
 * (the test is skipped and listed as skipped). Missing in CI: false, and one failing test per
 * missing tool carries the install hint (the test itself then runs and fails too).
 */
export function needs(...tools: Tool[]): false | string {
  const missing = tools.filter((t) => !hasTool(t));
  if (!missing.length) return false;
  if (!inCi()) return installHint(missing);
  for (const t of missing) {
    if (reported.has(t)) continue;
    reported.add(t);
    test(`${t} is installed (CI)`, () => assert.fail(installHint([t])));
  }
  return false;
}

/** Inside a test: skips it locally when a tool is missing, fails it with the install hint in CI. Returns whether to go on. */
export function requireTools(t: TestContext, ...tools: Tool[]): boolean {
  const missing = tools.filter((x) => !hasTool(x));
  if (!missing.length) return true;
  if (inCi()) assert.fail(installHint(missing));
  t.skip(installHint(missing));
  return false;
}
