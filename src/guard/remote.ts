// Reading the watchdog's state file and writing its snooze file on the instance, over SSH with
// the real OpenSSH client and the instance's entry in the managed SSH config. No `vscode`.
import { execFile } from 'node:child_process';
import type { WatchdogState } from './watchdogState';

export type { WatchdogState };

/** The instance as the guard UI reaches it. */
export interface GuardRemote {
  /** The watchdog's state; undefined when the instance has no SSH entry on this machine. */
  readState(id: number): Promise<WatchdogState | undefined>;
  /** Writes the snooze file (minutes from the instance's own clock; 0 ends a snooze); returns its epoch. */
  snooze(id: number, minutes: number): Promise<number>;
}

export class GuardRemoteError extends Error {
  override name = 'GuardRemoteError';
}

const DIR = '"${TMPDIR:-/tmp}/gpu-rental"';
export const READ_STATE_COMMAND = `cat ${DIR}/state.json`;
export function snoozeCommand(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > 7 * 24 * 60) throw new GuardRemoteError('minutes must be a whole number from 0 to 10080.');
  return `d=${DIR}; mkdir -p "$d" && t=$(( $(date +%s) + ${minutes * 60} )) && echo "$t" >"$d/snooze-until" && echo "$t"`;
}

export interface SshTarget {
  /** The managed SSH config file that holds the entry. */
  configPath: string;
  alias: string;
}

export interface SshGuardRemoteOptions {
  /** The instance's entry, or undefined when it has none here. */
  target(id: number): Promise<SshTarget | undefined>;
  ssh?: string;
  timeoutMs?: number;
  /** The environment of `ssh` (tests: a temporary HOME). Default: this process's. */
  env?: NodeJS.ProcessEnv;
}

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Runs one fixed command on the instance with `ssh -F <managed config> <alias>`, never asking for input. */
export function sshGuardRemote(o: SshGuardRemoteOptions): GuardRemote {
  const run = async (id: number, command: string): Promise<string | undefined> => {
    const t = await o.target(id);
    if (!t) return undefined;
    if (!ALIAS.test(t.alias)) throw new GuardRemoteError(`The SSH entry of instance ${id} has an unexpected name.`);
    const args = ['-F', t.configPath, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-o', 'ClearAllForwardings=yes', '-T', t.alias, command];
    return new Promise((resolve, reject) => {
      execFile(o.ssh ?? 'ssh', args, { timeout: o.timeoutMs ?? 20_000, maxBuffer: 64 * 1024, windowsHide: true, ...(o.env ? { env: o.env } : {}) }, (err, stdout, stderr) => {
        if (err) {
          const why = String(stderr).trim().split('\n').pop()?.slice(0, 200) || (err as NodeJS.ErrnoException).code || err.message;
          reject(new GuardRemoteError(`ssh ${t.alias} failed: ${why}`));
        } else resolve(String(stdout));
      });
    });
  };
  return {
    async readState(id) {
      const out = await run(id, READ_STATE_COMMAND);
      if (out === undefined) return undefined;
      let json: unknown;
      try {
        json = JSON.parse(out);
      } catch {
        throw new GuardRemoteError(`The guard state on instance ${id} is not JSON (the watchdog may not have started yet).`);
      }
      // The schema (and zod) load with the first state read, not with the extension.
      const state = (await import('./watchdogState')).readWatchdogState(json);
      if (!state) throw new GuardRemoteError(`The guard state on instance ${id} has an unexpected shape.`);
      return state;
    },
    async snooze(id, minutes) {
      const out = await run(id, snoozeCommand(minutes));
      if (out === undefined) throw new GuardRemoteError(`Instance ${id} has no SSH entry on this machine, so the guard on it cannot be reached.`);
      const t = Number(out.trim());
      if (!Number.isInteger(t)) throw new GuardRemoteError(`Writing the snooze file on instance ${id} gave an unexpected answer.`);
      return t;
    },
  };
}
