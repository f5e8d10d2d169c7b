// Values that reach an SSH config file or an ssh command line: the one place that decides
// what a host, port and user may look like, and how a path is written for OpenSSH's tokenizer.
// Server text (ssh_host, ssh_port) and template text (user, identityFile) pass through here
// before the SSH writer, Copy SSH Command or the terminal fallback use them.
import * as l10n from '@vscode/l10n';

/** A DNS name or an IPv4/IPv6 address: no spaces, quotes, shell or ssh_config syntax, no leading '-'. */
const HOST_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)$/;
const USER_RE = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;

export function validPort(p: unknown): p is number {
  return typeof p === 'number' && Number.isInteger(p) && p > 0 && p < 65536;
}

export function validHost(h: unknown): h is string {
  return typeof h === 'string' && h.length <= 253 && HOST_RE.test(h);
}

export function validUser(u: unknown): u is string {
  return typeof u === 'string' && USER_RE.test(u);
}

export type SshTarget = { ok: true; host: string; port: number; user: string } | { ok: false; problem: string };

/**
 * The checked SSH address of an instance: host and port as the service reported them (the
 * schema already trimmed the host), and the user. Anything else (a shell metacharacter, a
 * newline, an option-looking host) gives `ok: false` with a sentence for the user.
 */
export function checkSshTarget(id: number, host: unknown, port: unknown, user = 'root'): SshTarget {
  if (host === undefined || host === null || host === '' || port === undefined || port === null)
    return { ok: false, problem: l10n.t('Instance {0} has no SSH address yet. Wait until it is running, then try again.', id) };
  if (!validHost(host))
    return {
      ok: false,
      problem: l10n.t(
        'The service reported an SSH host for instance {0} that is not a valid host name, so no SSH command or entry was made from it. Refresh the instance list and try again; if it persists, report it.',
        id,
      ),
    };
  if (!validPort(port))
    return {
      ok: false,
      problem: l10n.t(
        'The service reported an SSH port for instance {0} that is not a valid port (1-65535), so no SSH command or entry was made from it. Refresh the instance list and try again.',
        id,
      ),
    };
  if (!validUser(user))
    return { ok: false, problem: l10n.t('The SSH user "{0}" is not a valid user name. Fix "user" in the template\'s ssh section.', printable(user)) };
  return { ok: true, host, port, user };
}

/** The private keys ssh tries without -i or an IdentityFile line (ssh(1), ~/.ssh/id_*). */
export const DEFAULT_IDENTITY_NAMES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'id_xmss', 'id_dsa'];

/** True when `path` is one of the keys ssh tries by default for a user whose home is `home`. */
export function isDefaultIdentity(path: string, home: string, platform: NodeJS.Platform = process.platform): boolean {
  const norm = (p: string) => (platform === 'win32' ? p.replace(/\\/g, '/').toLowerCase() : p).replace(/\/+$/, '');
  const h = norm(home);
  return DEFAULT_IDENTITY_NAMES.some((n) => norm(path) === `${h}/.ssh/${n}`);
}

/**
 * A value as one word of a command line pasted into a shell: as is when it has only plain
 * characters; else in single quotes (POSIX shells; `'` written as '\'') or, on Windows, in double
 * quotes (PowerShell and cmd). A control character (a pasted line break would run what follows),
 * or on Windows a `"`, cannot be quoted safely: SshValueError, with `what` naming the value.
 */
export function shellWord(v: string, what: string, platform: NodeJS.Platform = process.platform): string {
  if (/[\u0000-\u001f\u007f]/.test(v))
    throw new SshValueError(l10n.t('{0} "{1}" cannot be put on a command line: it contains a control character (such as a line break).', what, printable(v)));
  if (/^[A-Za-z0-9._/:@%+=,-]+$/.test(v) && !v.startsWith('-')) return v;
  if (platform === 'win32') {
    if (v.includes('"')) throw new SshValueError(l10n.t('{0} "{1}" cannot be put on a command line: it contains a double quote (").', what, printable(v)));
    return `"${v}"`;
  }
  return `'${v.replace(/'/g, "'\\''")}'`;
}

export interface SshCommandOptions {
  /** The private key the instance accepts: `-i` (and IdentitiesOnly) when ssh would not try it by default. */
  identityFile?: string;
  /** The home whose ~/.ssh/id_* keys ssh tries by default. */
  home?: string;
  platform?: NodeJS.Platform;
}

/**
 * `ssh -p PORT USER@HOST` for a checked target (every part matched the patterns above, so no
 * quoting is needed there), with `-i <key> -o IdentitiesOnly=yes` when the key is not one ssh
 * tries by default: without it a plain shell's ssh is refused ("Permission denied (publickey)").
 */
export function sshCommandLine(t: { host: string; port: number; user: string }, o: SshCommandOptions = {}): string {
  const platform = o.platform ?? process.platform;
  const key = o.identityFile?.trim();
  const id =
    key && !(o.home && isDefaultIdentity(key, o.home, platform))
      ? `-i ${shellWord(sshPath(key, platform), 'The SSH key path', platform)} -o IdentitiesOnly=yes `
      : '';
  return `ssh ${id}-p ${t.port} ${t.user}@${t.host}`;
}

/** `ssh -F <config file> <alias>`: a host entry in a file plain ssh does not read (the demo's). */
export function sshConfigCommandLine(configFile: string, alias: string, platform: NodeJS.Platform = process.platform): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(alias)) throw new SshValueError(l10n.t('The host alias "{0}" cannot be put on a command line.', printable(alias)));
  return `ssh -F ${shellWord(sshPath(configFile, platform), l10n.t('The SSH config path'), platform)} ${alias}`;
}

function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 80);
}

/** Why a path cannot be written into an SSH config, or undefined when it can. */
export function sshPathProblem(p: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (/[\u0000-\u001f\u007f]/.test(p)) return l10n.t('it contains a control character (such as a line break or tab)');
  if (p.includes('"')) return l10n.t('it contains a double quote (")');
  if (platform !== 'win32' && p.includes('\\')) return l10n.t('it contains a backslash (\\)');
  if (p.includes('${')) return 'it contains "${", which OpenSSH would read as an environment variable';
  return undefined;
}

/** Paths in ssh_config: forward slashes work with OpenSSH on every platform (Windows paths use '\'). */
export function sshPath(p: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? p.replace(/\\/g, '/') : p;
}

/** A path can be written into an SSH config only when sshPathProblem finds nothing. */
export class SshValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SshValueError';
  }
}

/**
 * A path as one ssh_config argument. OpenSSH's tokenizer treats both quote characters as
 * quotes and has no escape for `'` inside single quotes, so a path with a space, `#`, `'` or
 * any character outside a plain set is wrapped in double quotes (a path with `"`, `\` or a
 * control character is refused: `what` names it in the error). `percent` doubles `%` for the
 * directives OpenSSH expands %-tokens in (IdentityFile, UserKnownHostsFile; not Include).
 */
export function sshConfigPath(path: string, what: string, o: { percent: boolean }): string {
  const p = sshPath(path);
  const problem = sshPathProblem(p);
  if (problem) throw new SshValueError(l10n.t('{0} "{1}" cannot be written into an SSH config: {2}. Use a path without it.', what, printable(path), problem));
  const v = o.percent ? p.replace(/%/g, '%%') : p;
  return /^[A-Za-z0-9._/~:@+,-]+$/.test(v) ? v : `"${v}"`;
}

/** The inverse of sshConfigPath for values this writer wrote. */
export function readSshConfigPath(v: string, o: { percent: boolean }): string {
  const unq = v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
  return o.percent ? unq.replace(/%%/g, '%') : unq;
}
