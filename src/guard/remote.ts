// Reading the watchdog's state file and writing its snooze file on the instance, over SSH with
// the real OpenSSH client and the instance's entry in the managed SSH config. No `vscode`.
import { execFile } from 'node:child_process';
import type { WatchdogState } from './watchdogState';
import { redactLog } from '../api/logs';
import * as l10n from '@vscode/l10n';

export type { WatchdogState };

/** One read on the instance: its clock (epoch seconds) and the watchdog's state, when it has written one. */
export interface GuardReading {
  now: number;
  state?: WatchdogState;
  /** The last lines of guard.log (Show Instance Details shows them). */
  log?: string;
}

/** The instance as the guard UI reaches it. */
export interface GuardRemote {
  /** The instance's clock and the watchdog's state; undefined when the instance has no SSH entry on this machine. */
  readState(id: number): Promise<GuardReading | undefined>;
  /** The end of the watchdog's log (guard.log; '' when it has written none yet); undefined without an SSH entry. */
  readLog(id: number): Promise<string | undefined>;
  /** Writes the snooze file (minutes from the instance's own clock; 0 ends a snooze); returns its epoch. */
  snooze(id: number, minutes: number): Promise<number>;
}

export class GuardRemoteError extends Error {
  override name = 'GuardRemoteError';
}

const DIR = '"${TMPDIR:-/tmp}/gpu-rental"';
const LOG_MARK = '@@guard.log@@';
/** The instance's clock on the first line (freshness is judged by it, not by ours), then state.json if there is one. */
export const READ_STATE_COMMAND = `date +%s; cat ${DIR}/state.json 2>/dev/null; echo; echo ${LOG_MARK}; tail -n 15 ${DIR}/guard.log 2>/dev/null; true`;
export const READ_LOG_COMMAND = `tail -n 200 ${DIR}/guard.log 2>/dev/null; true`;
export function snoozeCommand(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > 7 * 24 * 60) throw new GuardRemoteError(l10n.t('minutes must be a whole number from 0 to 10080.'));
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
  /** Secret values to mask in what is read (the connection's keys); secret-looking assignments and token shapes are masked anyway. */
  secrets?(): ReadonlyArray<string | undefined>;
}

/** A log read from the instance as plain, printable text with every secret masked (it is shown in documents). */
function plainLog(raw: string, secrets: ReadonlyArray<string | undefined>, maxChars: number): string {
  return redactLog(raw.replace(/\r\n?/g, '\n').replace(/[^\x20-\x7e\n]/g, ''), secrets)
    .slice(-maxChars)
    .trim();
}

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Runs one fixed command on the instance with `ssh -F <managed config> <alias>`, never asking for input. */
export function sshGuardRemote(o: SshGuardRemoteOptions): GuardRemote {
  const secrets = () => o.secrets?.() ?? [];
  const run = async (id: number, command: string): Promise<string | undefined> => {
    const t = await o.target(id);
    if (!t) return undefined;
    if (!ALIAS.test(t.alias)) throw new GuardRemoteError(l10n.t('The SSH entry of instance {0} has an unexpected name.', id));
    const args = ['-F', t.configPath, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-o', 'ClearAllForwardings=yes', '-T', t.alias, command];
    return new Promise((resolve, reject) => {
      execFile(
        o.ssh ?? 'ssh',
        args,
        { timeout: o.timeoutMs ?? 20_000, maxBuffer: 64 * 1024, windowsHide: true, ...(o.env ? { env: o.env } : {}) },
        (err, stdout, stderr) => {
          if (err) {
            const why = String(stderr).trim().split('\n').pop()?.slice(0, 200) || (err as NodeJS.ErrnoException).code || err.message;
            reject(new GuardRemoteError(l10n.t('ssh {0} failed: {1}', t.alias, why)));
          } else resolve(String(stdout));
        },
      );
    });
  };
  return {
    async readState(id) {
      const out = await run(id, READ_STATE_COMMAND);
      if (out === undefined) return undefined;
      const nl = out.indexOf('\n');
      const now = Number((nl < 0 ? out : out.slice(0, nl)).trim());
      if (!Number.isInteger(now) || now <= 0) throw new GuardRemoteError(l10n.t('Instance {0} answered the guard state read in an unexpected way.', id));
      const body = nl < 0 ? '' : out.slice(nl + 1);
      const mark = body.indexOf(`${LOG_MARK}\n`);
      // Only our own log's words, as plain text (it is shown in a Markdown document).
      const logText = mark < 0 ? '' : plainLog(body.slice(mark + LOG_MARK.length + 1), secrets(), 4000);
      const log = logText ? { log: logText } : {};
      const rest = (mark < 0 ? body : body.slice(0, mark)).trim();
      if (!rest) return { now, ...log };
      let json: unknown;
      try {
        json = JSON.parse(rest);
      } catch {
        // Half-written by a guard killed mid-write (it writes a temp file and renames, so rarely): no state.
        return { now, ...log };
      }
      // The schema (and zod) load with the first state read, not with the extension.
      const state = (await import('./watchdogState')).readWatchdogState(json);
      if (!state) throw new GuardRemoteError(l10n.t('The guard state on instance {0} has an unexpected shape.', id));
      return { now, state, ...log };
    },
    async readLog(id) {
      const out = await run(id, READ_LOG_COMMAND);
      return out === undefined ? undefined : plainLog(out, secrets(), 60_000);
    },
    async snooze(id, minutes) {
      const out = await run(id, snoozeCommand(minutes));
      if (out === undefined) throw new GuardRemoteError(l10n.t('Instance {0} has no SSH entry on this machine, so the guard on it cannot be reached.', id));
      const t = Number(out.trim());
      if (!Number.isInteger(t)) throw new GuardRemoteError(l10n.t('Writing the snooze file on instance {0} gave an unexpected answer.', id));
      return t;
    },
  };
}
