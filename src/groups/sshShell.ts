// The RemoteShell of groupLaunch.ts and Run on Group over the real OpenSSH client and the
// managed SSH config (its group host names gpu-<group>-<rank>). No `vscode`.
import { execFile } from 'node:child_process';
import type { RemoteShell } from './groupLaunch';

export interface SshShellOptions {
  /** The managed SSH config file (SshConfigWriter.configPath). */
  configPath: string;
  ssh?: string;
  timeoutMs?: number;
  /** The environment of `ssh` (tests: a temporary HOME). Default: this process's. */
  env?: NodeJS.ProcessEnv;
}

export function sshShell(o: SshShellOptions): RemoteShell {
  return {
    run: (alias, command) =>
      new Promise((resolve) => {
        const args = ['-F', o.configPath, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=20', '-T', alias, command];
        execFile(o.ssh ?? 'ssh', args, { timeout: o.timeoutMs ?? 60_000, env: o.env ?? process.env, maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
          resolve({
            code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
        );
      }),
  };
}
