// What the real OpenSSH client makes of a config: `ssh -G -F <config> <alias>`, for the tests
// that prove an entry by OpenSSH's own parsing rather than by reading the file back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hasTool, needs } from '../tools';

export const hasSsh = hasTool('ssh');
/** For `{ skip: noSsh }`: skipped locally without OpenSSH, failed with the install hint in CI (../tools.ts). */
export const noSsh = needs('ssh');

/** Every value ssh -G prints per key (identityfile, localforward… can repeat); fails the test on any OpenSSH complaint. */
export function sshGAll(config: string, alias: string): Map<string, string[]> {
  const r = spawnSync('ssh', ['-G', '-F', config, alias], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.equal(r.status, 0, `ssh -G failed: ${r.stderr}`);
  const complaints = r.stderr.split('\n').filter((l) => l.trim() && !/^Pseudo-terminal will not be allocated/.test(l));
  assert.deepEqual(complaints, [], `ssh -G complained: ${r.stderr}`);
  const m = new Map<string, string[]>();
  for (const l of r.stdout.split('\n')) {
    const i = l.indexOf(' ');
    if (i > 0) m.set(l.slice(0, i), [...(m.get(l.slice(0, i)) ?? []), l.slice(i + 1)]);
  }
  return m;
}

/** The first value ssh -G prints per key. */
export function sshG(config: string, alias: string): Map<string, string> {
  return new Map([...sshGAll(config, alias)].map(([k, v]) => [k, v[0]!]));
}
