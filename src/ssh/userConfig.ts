// The one marked `Include` line that pulls the extension's own config file into the user's
// SSH config. Pure functions over the file's bytes; the writer does the I/O.
import { sshConfigPath, sshPath } from './sshValues';
import * as l10n from '@vscode/l10n';

/** The comment line directly above our Include line. Stable: it is how we find our line again. */
export const INCLUDE_MARKER = '# gpu-rental: the GPU Rental extension keeps its Remote-SSH hosts in the file below (delete both lines to undo)';
const MARKER_RE = /^\s*#\s*gpu-rental:/;

export type IncludeRefusal = 'symlink' | 'readonly' | 'unparsable' | 'malformed-marker' | 'not-a-file' | 'write-failed' | 'unwritable-path';

export type IncludeStatus =
  | { state: 'present'; userConfig: string }
  | {
      state: 'absent';
      userConfig: string;
      /**
       * The file starts with a UTF-8 byte-order mark. OpenSSH reads it as part of the first
       * keyword and refuses the whole file ("Bad configuration option"), so every ssh command
       * fails with it; adding our line removes those 3 bytes too.
       */
      bom?: boolean;
      /** Our Include line is in the file already (only the BOM keeps OpenSSH from reading it). */
      includeThere?: boolean;
    }
  | {
      state: 'refused';
      userConfig: string;
      reason: IncludeRefusal;
      /** The one line the user should add at the very top of their config themselves. */
      line: string;
      /** What happened and what to do next. */
      message: string;
    };

/** The Include line for our managed file (throws SshValueError for a path OpenSSH cannot read back). */
export function includeLineFor(managedConfigPath: string): string {
  return `Include ${sshConfigPath(managedConfigPath, l10n.t('The GPU Rental SSH config path'), { percent: false })}`;
}

/** Splits an ssh_config line into keyword and arguments (double quotes group). Undefined when the quotes do not balance. */
export function tokenize(line: string): string[] | undefined {
  const s = line.trim().replace(/^([A-Za-z]+)\s*=\s*/, '$1 ');
  const out: string[] = [];
  let cur = '';
  let inTok = false;
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') {
      quoted = !quoted;
      inTok = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (inTok) out.push(cur);
      cur = '';
      inTok = false;
    } else {
      cur += ch;
      inTok = true;
    }
  }
  if (quoted) return undefined;
  if (inTok) out.push(cur);
  return out;
}

export interface ParsedUserConfig {
  ok: true;
  bom: boolean;
  eol: '\n' | '\r\n';
  /** Our marker+Include pair is there (or the user added our Include line by hand). */
  present: boolean;
}
export interface UnparsableUserConfig {
  ok: false;
  reason: 'unparsable' | 'malformed-marker';
  detail: string;
}

/**
 * Reads the user's config just enough to decide whether our Include is there and whether it
 * is safe to prepend it. `targets` are the spellings of our managed file's path to recognise.
 */
export function analyseUserConfig(bytes: Buffer, targets: string[]): ParsedUserConfig | UnparsableUserConfig {
  let text: string;
  try {
    // ignoreBOM: keep a BOM in the text (a decoder drops it by default), so that it is seen (and removed on the next write).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'unparsable', detail: l10n.t('it is not valid UTF-8 text') };
  }
  if (text.includes('\0')) return { ok: false, reason: 'unparsable', detail: l10n.t('it contains binary data') };
  const bom = text.startsWith('\uFEFF');
  if (bom) text = text.slice(1);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const norm = new Set(targets.map((t) => sshPath(t)));
  const isOurInclude = (line: string | undefined): boolean => {
    const t = line === undefined ? undefined : tokenize(line);
    return !!t && t.length >= 2 && t[0]!.toLowerCase() === 'include' && t.slice(1).some((a) => norm.has(sshPath(a)));
  };
  let markers = 0;
  let present = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (MARKER_RE.test(line)) {
      markers++;
      if (!isOurInclude(lines[i + 1])) {
        return { ok: false, reason: 'malformed-marker', detail: l10n.t('the gpu-rental marker on line {0} is not followed by its Include line', i + 1) };
      }
      present = true;
      continue;
    }
    const t = tokenize(line.trim().startsWith('#') ? '' : line);
    if (t === undefined) return { ok: false, reason: 'unparsable', detail: l10n.t('line {0} has an unbalanced quote', i + 1) };
    if (isOurInclude(line)) present = true;
  }
  if (markers > 1) return { ok: false, reason: 'malformed-marker', detail: l10n.t('the gpu-rental marker appears {0} times', markers) };
  return { ok: true, bom, eol, present };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The user's bytes without a leading byte-order mark, which OpenSSH refuses (the rest byte for byte). */
export function withoutBom(original: Buffer): Buffer {
  return original.subarray(0, 3).equals(BOM) ? original.subarray(3) : original;
}

/**
 * The user's bytes with our two lines prepended; everything of theirs is kept byte for byte,
 * except a leading byte-order mark, which is dropped (OpenSSH refuses a file that starts with one).
 */
export function prependInclude(original: Buffer | undefined, includeLine: string, eol: ParsedUserConfig['eol']): Buffer {
  const head = `${INCLUDE_MARKER}${eol}${includeLine}${eol}`;
  if (!original || original.length === 0) return Buffer.from(head, 'utf8');
  return Buffer.concat([Buffer.from(head + eol, 'utf8'), withoutBom(original)]);
}
