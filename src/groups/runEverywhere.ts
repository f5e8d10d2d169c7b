// "Run on Group…": one command on every member at once, each in its rank's environment (the file
// groupLaunch.ts wrote), over the real OpenSSH client and the group's SSH entries. Each output
// line comes back prefixed with its rank, so one terminal shows them all, in the order they come.
import { spawn } from 'node:child_process';
import { GROUP_ENV_FILE } from './groupLaunch';
import type { GroupRecord } from './groupRecords';

export interface MemberRun {
  rank: number;
  alias: string;
  /** The remote command's exit code (ssh's own 255 when it could not connect; -1: not started). */
  code: number;
}

export interface RunEverywhereOptions {
  configPath: string;
  ssh?: string;
  env?: NodeJS.ProcessEnv;
  /** One line of output, with its rank; `err` for standard error. */
  onLine(rank: number, line: string, err: boolean): void;
  signal?: AbortSignal;
}

/** What each member runs: its environment loaded first, then the user's command in its own shell. */
export function memberCommand(command: string): string {
  return `[ -f "${GROUP_ENV_FILE}" ] && . "${GROUP_ENV_FILE}"; ${command}`;
}

export function runEverywhere(g: GroupRecord, command: string, o: RunEverywhereOptions): Promise<MemberRun[]> {
  return Promise.all(
    g.members.map(
      (m) =>
        new Promise<MemberRun>((resolve) => {
          const alias = `gpu-${g.name}-${m.rank}`;
          const child = spawn(o.ssh ?? 'ssh', ['-F', o.configPath, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=20', '-T', alias, memberCommand(command)], {
            env: o.env ?? process.env,
            ...(o.signal ? { signal: o.signal } : {}),
          });
          for (const [stream, err] of [
            [child.stdout, false],
            [child.stderr, true],
          ] as const) {
            let rest = '';
            stream.setEncoding('utf8');
            stream.on('data', (d: string) => {
              const lines = (rest + d).split(/\r?\n/);
              rest = lines.pop() ?? '';
              for (const l of lines) o.onLine(m.rank, l, err);
            });
            stream.on('end', () => rest && o.onLine(m.rank, rest, err));
          }
          child.on('error', () => resolve({ rank: m.rank, alias, code: -1 }));
          child.on('close', (code) => resolve({ rank: m.rank, alias, code: code ?? -1 }));
        }),
    ),
  );
}
