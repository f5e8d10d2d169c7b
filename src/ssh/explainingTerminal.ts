// ssh in an integrated terminal that explains its failures. VS Code closes a terminal whose
// process ends at once and says only "exit code 255"; the cause (connection refused, key not
// accepted, host key changed) went with it. So the terminal runs a small Node wrapper: ssh
// gets the terminal's own tty (password and passphrase prompts, resizing and Ctrl-C work as
// in any terminal), its error output is shown as it comes and kept, and when ssh itself fails
// the wrapper adds one sentence of what to do and keeps the terminal open until a key press.
// No `vscode` here: the commands layer opens the terminal (src/ssh/vscode/openSshTerminal.ts).
import { spawn } from 'node:child_process';
import * as l10n from '@vscode/l10n';

export type SshFailureCause = 'refused' | 'publickey' | 'hostkey' | 'resolve' | 'timeout' | 'unreachable' | 'closed' | 'other';

export interface SshFailure {
  cause: SshFailureCause;
  /** One sentence: what happened and what to do. */
  advice: string;
}

/** ssh's exit status when ssh itself failed (as opposed to the remote command's status). */
export const SSH_FAILED = 255;

const CAUSES: Array<[RegExp, SshFailureCause, string]> = [
  [
    /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key for .* has changed/i,
    'hostkey',
    l10n.t(
      'The host key differs from the one remembered for this address; rented addresses are reused, so this is usually a new machine on an old address: remove the old key with the ssh-keygen -R line printed above and connect again.',
    ),
  ],
  [
    /Permission denied \(publickey|Permission denied, please try again|Too many authentication failures/i,
    'publickey',
    l10n.t(
      'The instance did not accept your SSH key: add your public key to your account on the service (it is copied to instances when they are created), or point gpuRental.ssh.identityFile at the matching private key, then connect again.',
    ),
  ],
  [
    /Connection refused/i,
    'refused',
    l10n.t(
      'Nothing accepts SSH connections at that address yet: the instance may still be starting, or its port changed after a restart; wait a minute, refresh the Instances view and connect again.',
    ),
  ],
  [
    /Could not resolve hostname|Name or service not known|nodename nor servname/i,
    'resolve',
    l10n.t('The SSH host name could not be resolved: check your network connection and DNS, then refresh the Instances view and connect again.'),
  ],
  [
    /Connection timed out|Operation timed out|timed out during banner exchange/i,
    'timeout',
    l10n.t(
      'The instance did not answer in time: check that it is running and that your network or firewall allows outgoing SSH to that port, then connect again.',
    ),
  ],
  [
    /No route to host|Network is unreachable/i,
    'unreachable',
    l10n.t('The instance cannot be reached from this machine: check your network connection or VPN, then connect again.'),
  ],
  [
    /Connection closed by|Connection reset by|kex_exchange_identification/i,
    'closed',
    l10n.t('The instance closed the connection before you were logged in: it may still be starting its SSH server; wait a minute and connect again.'),
  ],
];

/** Reads ssh's error output (the last lines matter most) and says what to do. */
export function explainSshFailure(stderr: string, exitCode: number | null): SshFailure {
  for (const [re, cause, advice] of CAUSES) if (re.test(stderr)) return { cause, advice };
  const code = exitCode === null ? l10n.t('was stopped') : l10n.t('exited with code {0}', exitCode);
  return {
    cause: 'other',
    advice: l10n.t(
      'ssh {0}: the lines above say why. Check that the instance is running (GPU Rental: Refresh Instances and Offers), then connect again.',
      code,
    ),
  };
}

/** The arguments for `ssh` that reach a host entry, through a config file when it is not included in the user's own. */
export function sshArgsForEntry(alias: string, configFile?: string): string[] {
  return configFile ? ['-F', configFile, alias] : [alias];
}

/**
 * A no-op option that marks the ssh of GPU Rental's terminals on its command line (the variable
 * is never set, so nothing is sent). When VS Code itself runs remotely (code-server, the demo),
 * it notices the ports an ssh LocalForward listens on and pops up "Your application running on
 * port 8080 is available": package.json's configurationDefaults give `remote.portsAttributes` a
 * key matching this text with `onAutoForward: silent`, so the forward works without that popup.
 */
export const SSH_TERMINAL_MARKER = 'SendEnv=GPU_RENTAL_SSH_TERMINAL';

export interface WrapperIo {
  stderr: { write(s: string | Uint8Array): unknown };
  stdin: NodeJS.ReadStream | (NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (b: boolean) => unknown });
  /** The ssh binary (tests: a path; default `ssh` from PATH). */
  ssh?: string;
}

/**
 * The wrapper's body: runs ssh with `args`, and resolves with the exit code to end with.
 * ssh failing (255, or not starting at all) prints the advice and waits for a key first.
 */
export function runSsh(args: readonly string[], io: WrapperIo): Promise<number> {
  return new Promise((resolve) => {
    let tail = '';
    let done = false;
    const finish = (code: number, failure: SshFailure | undefined) => {
      if (done) return;
      done = true;
      if (!failure) return resolve(code);
      io.stderr.write(`\r\n\x1b[1;33m${failure.advice}\x1b[0m\r\n\r\n${l10n.t('Press Enter to close this terminal.')}\r\n`);
      const stdin = io.stdin as NodeJS.ReadStream;
      if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(true);
      stdin.once('data', () => resolve(code));
      stdin.once('end', () => resolve(code));
      stdin.resume();
    };
    const env = { ...process.env };
    delete env.GPU_RENTAL_SSH_TERMINAL; // the marker sends nothing
    const child = spawn(io.ssh ?? 'ssh', ['-o', SSH_TERMINAL_MARKER, ...args], { stdio: ['inherit', 'inherit', 'pipe'], env });
    child.stderr?.on('data', (d: Buffer) => {
      io.stderr.write(d);
      tail = (tail + d.toString('utf8')).slice(-16_384);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      const advice =
        e.code === 'ENOENT'
          ? l10n.t(
              'The ssh command (OpenSSH client) was not found: install OpenSSH (on Windows: Settings > Optional features > OpenSSH Client) and connect again.',
            )
          : l10n.t('ssh could not be started ({0}): check that the OpenSSH client works in a terminal, then connect again.', e.message);
      finish(127, { cause: 'other', advice });
    });
    child.on('close', (code, signal) => {
      const c = code ?? (signal ? 128 : 1);
      finish(c, c === SSH_FAILED ? explainSshFailure(tail, code) : undefined);
    });
  });
}
