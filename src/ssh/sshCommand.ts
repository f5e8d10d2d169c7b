// The ssh command line a user may paste for an instance (or why there is none).
import type { Instance } from '../api/types';
import { checkSshTarget, sshCommandLine } from './sshValues';
import { sshAddress } from './address';

/**
 * `ssh -p PORT root@HOST` for a running instance, or why there is none. Host and port are
 * server text: they pass the SSH writer's own check (checkSshTarget), so nothing that a shell
 * would read as syntax ever reaches the command a user pastes.
 */
export function sshCommandFor(i: Instance): { command: string } | { problem: string } {
  // The service's rule (direct 22/tcp, else the proxy, +1 for Jupyter), as the SSH entry uses it.
  const a = sshAddress(i);
  const t = checkSshTarget(i.id, a?.host, a?.port);
  return t.ok ? { command: sshCommandLine(t) } : { problem: t.problem };
}

/** @internal test */
export function sshCommand(i: Instance): string | undefined {
  const r = sshCommandFor(i);
  return 'command' in r ? r.command : undefined;
}
