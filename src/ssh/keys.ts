// The user's SSH keys on this machine and on the account: which local public keys have their
// private half here, which of them the account already holds (compared by key material, not
// comment), and creating a key pair for this extension when there is none. Plain TypeScript:
// the commands layer passes the prompts in.
import { execFile } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { parsePublicKeyLine, publicKeyFingerprint } from '../api/sshKeyFormat';
import type { AccountSshKey, Instance, Logger, ServiceApi } from '../api/types';

/** The key pair this extension creates when the user has none (never overwritten). */
export const GENERATED_KEY_NAME = 'gpu-rental_ed25519';
const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

export interface LocalKey {
  /** Absolute path of the private key (what IdentityFile names). */
  privatePath: string;
  publicPath: string;
  /** The public key line as in the .pub file. */
  line: string;
  type: string;
  fingerprint: string;
  comment: string;
}

/** A failure with a message that says what happened and what to do next. */
export class SshKeyError extends Error {
  constructor(
    readonly code: 'not-found' | 'not-public-key' | 'private-key' | 'no-private-half' | 'exists' | 'keygen-failed',
    message: string,
  ) {
    super(message);
    this.name = 'SshKeyError';
  }
}

/** `~`, `~/x` and relative paths resolved against home; absolute paths unchanged. */
export function expandHome(p: string, home: string): string {
  const t = p.trim();
  if (t === '~') return home;
  if (t.startsWith('~/') || t.startsWith('~\\')) return join(home, t.slice(2));
  return isAbsolute(t) ? resolve(t) : resolve(home, t);
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** The public half of a key path: `x.pub` for a private key path, the path itself for a .pub. */
function halves(path: string): { privatePath: string; publicPath: string } {
  return path.endsWith('.pub') ? { privatePath: path.slice(0, -4), publicPath: path } : { privatePath: path, publicPath: `${path}.pub` };
}

/** Describes one public key line (type, SHA256 fingerprint, comment), or undefined when it is not one. */
export function describePublicKey(line: string): { type: string; fingerprint: string; comment: string } | undefined {
  const k = parsePublicKeyLine(line);
  return k && { type: k.type, fingerprint: publicKeyFingerprint(k), comment: k.comment };
}

/**
 * Reads the key at `path` (a .pub file or the private key beside it). With `needPrivate`,
 * the private half must exist too. Throws SshKeyError with an actionable message.
 */
export async function readLocalKey(path: string, home: string, needPrivate = true): Promise<LocalKey> {
  const { privatePath, publicPath } = halves(expandHome(path, home));
  let text: string;
  try {
    text = await readFile(publicPath, 'utf8');
  } catch {
    throw new SshKeyError('not-found', `There is no public key file ${publicPath}. Pick a .pub file (or create a key pair with ssh-keygen).`);
  }
  if (/PRIVATE KEY/.test(text)) {
    throw new SshKeyError('private-key', `${publicPath} holds a private key. Pick the public key (the .pub file); a private key never leaves this machine.`);
  }
  const line =
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .find((l) => l.trim() && !l.trim().startsWith('#'))
      ?.trim() ?? '';
  const parsed = parsePublicKeyLine(line);
  if (!parsed) throw new SshKeyError('not-public-key', `${publicPath} is not an OpenSSH public key (one line like "ssh-ed25519 AAAA… comment").`);
  if (needPrivate && !(await exists(privatePath))) {
    throw new SshKeyError('no-private-half', `The private key ${privatePath} for ${publicPath} is not on this machine, so SSH could not log in with it.`);
  }
  return { privatePath, publicPath, line, type: parsed.type, fingerprint: publicKeyFingerprint(parsed), comment: parsed.comment };
}

/**
 * Public keys on this machine whose private half is here too: `extra` first (the template's
 * identityFile, a key picked before), then ~/.ssh/id_ed25519, id_ecdsa, id_rsa and this
 * extension's own key. One entry per key material.
 */
export async function findLocalKeys(home: string, extra: ReadonlyArray<string | undefined> = []): Promise<LocalKey[]> {
  const paths = [...extra.filter((p): p is string => !!p?.trim()), ...[...DEFAULT_KEYS, GENERATED_KEY_NAME].map((n) => join(home, '.ssh', n))];
  const out: LocalKey[] = [];
  for (const p of paths) {
    try {
      const k = await readLocalKey(p, home);
      if (!out.some((o) => o.fingerprint === k.fingerprint)) out.push(k);
    } catch {
      // not there, not a key, or no private half: not a candidate
    }
  }
  return out;
}

/** Fingerprints of the account's keys (unparseable lines are skipped). */
export function accountFingerprints(account: readonly AccountSshKey[]): Map<string, AccountSshKey> {
  const m = new Map<string, AccountSshKey>();
  for (const k of account) {
    const d = describePublicKey(k.public_key);
    if (d && !m.has(d.fingerprint)) m.set(d.fingerprint, k);
  }
  return m;
}

/** The first local key the account holds, with its account record. */
export function usableKey(local: readonly LocalKey[], account: readonly AccountSshKey[]): { key: LocalKey; record: AccountSshKey } | undefined {
  const fps = accountFingerprints(account);
  for (const key of local) {
    const record = fps.get(key.fingerprint);
    if (record) return { key, record };
  }
  return undefined;
}

function run(cmd: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((res) => {
    execFile(cmd, args, { timeout: 30_000, windowsHide: true }, (err, _out, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      res({ code, stderr: String(stderr ?? '') });
    });
  });
}

export interface CreateKeyOptions {
  home: string;
  comment?: string;
  /** 'auto' (default): ssh-keygen when it runs, else the ssh2 library. */
  generator?: 'auto' | 'ssh-keygen' | 'library';
  log?: Logger;
}

/**
 * Creates ~/.ssh/gpu-rental_ed25519 (0600) and its .pub, never overwriting anything: when the
 * pair already exists it is returned as is; when only one half exists, nothing is written.
 */
export async function createKeyPair(o: CreateKeyOptions): Promise<LocalKey> {
  const dir = join(o.home, '.ssh');
  const privatePath = join(dir, GENERATED_KEY_NAME);
  const publicPath = `${privatePath}.pub`;
  const [havePriv, havePub] = await Promise.all([exists(privatePath), exists(publicPath)]);
  if (havePriv && havePub) return readLocalKey(privatePath, o.home);
  if (havePriv || havePub) {
    throw new SshKeyError(
      'exists',
      `${havePriv ? privatePath : publicPath} exists without its other half; it was left untouched. Move it away or pick another key.`,
    );
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const comment = (o.comment ?? 'gpu-rental').replace(/[\r\n\0]/g, ' ').slice(0, 200);
  const gen = o.generator ?? 'auto';
  let done = false;
  if (gen !== 'library') {
    const r = await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', privatePath]);
    done = r.code === 0;
    if (!done) {
      if (gen === 'ssh-keygen')
        throw new SshKeyError('keygen-failed', `ssh-keygen could not create ${privatePath}: ${r.stderr.trim().slice(0, 200) || 'it is not installed'}.`);
      o.log?.info('ssh: ssh-keygen is not available; creating the key pair with the bundled SSH library');
      if (await exists(privatePath)) throw new SshKeyError('exists', `${privatePath} appeared while creating it; it was left untouched.`);
    }
  }
  if (!done) {
    const { generateEd25519 } = await import('./keygen');
    let pair: { private: string; public: string };
    try {
      pair = generateEd25519(comment);
    } catch (e) {
      throw new SshKeyError('keygen-failed', `Could not create ${privatePath}: ${(e as Error).message}. Install OpenSSH (ssh-keygen) and try again.`);
    }
    // 'wx': fail rather than overwrite a file that appeared meanwhile.
    await writeFile(privatePath, pair.private, { mode: 0o600, flag: 'wx' });
    await writeFile(publicPath, `${pair.public.trim()}\n`, { mode: 0o644, flag: 'wx' });
  }
  o.log?.info(`ssh: created the key pair ${privatePath}`);
  return readLocalKey(privatePath, o.home);
}

// ---- the check before renting and connecting ----------------------------------------------

export type KeyChoice = 'register' | 'create' | 'continue';

/** The prompts the check needs (VS Code quick picks in the extension, scripted in tests). */
export interface KeyPrompts {
  /** The one question when the account holds none of this machine's keys; undefined = dismissed. */
  choose(message: string, localKeys: readonly LocalKey[]): Promise<KeyChoice | undefined>;
  /** Which local key to register (shown with fingerprints); undefined = cancelled. */
  pickKey(localKeys: readonly LocalKey[]): Promise<LocalKey | undefined>;
}

export interface EnsureKeyDeps {
  api: Pick<ServiceApi, 'listSshKeys' | 'addSshKey' | 'attachSshKey'>;
  home: string;
  /** Preferred key paths: the template's ssh.identityFile, the key picked before. */
  preferred?: ReadonlyArray<string | undefined>;
  prompts: KeyPrompts;
  /** The user's instances, for attaching a newly added key to the running ones. */
  instances?: () => readonly Instance[];
  log?: Logger;
}

export type EnsureKeyResult =
  | { outcome: 'ok' | 'registered' | 'created'; key: LocalKey; record: AccountSshKey; attached: number[] }
  | { outcome: 'continued' | 'cancelled'; message: string };

/** Why the one prompt appears: what happens without a key, in the words ssh will use. */
export const NO_KEY_MESSAGE =
  'Your account has no SSH public key whose private key is on this machine, so instances will refuse every SSH login ("Permission denied (publickey)"). Register one of your keys, create a new key pair for GPU Rental, or continue without SSH access.';

/** The first of this machine's keys that the account holds (none: SSH would refuse every login), and the keys found here. */
export async function accountKeyHere(
  d: { api: Pick<ServiceApi, 'listSshKeys'> } & Pick<EnsureKeyDeps, 'home' | 'preferred'>,
): Promise<{ found?: { key: LocalKey; record: AccountSshKey }; local: LocalKey[] }> {
  const [account, local] = await Promise.all([d.api.listSshKeys(), findLocalKeys(d.home, d.preferred ?? [])]);
  const found = usableKey(local, account);
  return { ...(found ? { found } : {}), local };
}

/**
 * Makes sure the account holds a public key whose private half is here; asks once when it
 * does not. A key added here is also attached to the user's running instances (which were
 * created before it and would not accept it otherwise).
 */
export async function ensureAccountKey(d: EnsureKeyDeps): Promise<EnsureKeyResult> {
  const { found, local } = await accountKeyHere(d);
  if (found) return { outcome: 'ok', ...found, attached: [] };
  const choice = await d.prompts.choose(NO_KEY_MESSAGE, local);
  if (choice === 'continue') return { outcome: 'continued', message: NO_KEY_MESSAGE };
  let key: LocalKey | undefined;
  if (choice === 'register') key = local.length === 1 ? local[0] : await d.prompts.pickKey(local);
  else if (choice === 'create') key = await createKeyPair({ home: d.home, ...(d.log ? { log: d.log } : {}) });
  if (!key) return { outcome: 'cancelled', message: NO_KEY_MESSAGE };
  const { record, attached } = await registerKey(d, key);
  return { outcome: choice === 'create' ? 'created' : 'registered', key, record, attached };
}

/**
 * Adds a key to the account (an existing record with the same key material is reused) and
 * attaches it to every running instance, which accepts only the keys it was created with.
 */
export async function registerKey(
  d: Pick<EnsureKeyDeps, 'api' | 'instances' | 'log'>,
  key: Pick<LocalKey, 'line' | 'fingerprint'>,
): Promise<{ record: AccountSshKey; attached: number[] }> {
  const existing = accountFingerprints(await d.api.listSshKeys()).get(key.fingerprint);
  const record = existing ?? (await d.api.addSshKey(key.line));
  const attached: number[] = [];
  if (existing) return { record, attached };
  for (const inst of d.instances?.() ?? []) {
    if (inst.state !== 'running') continue;
    try {
      await d.api.attachSshKey(inst.id, key.line);
      attached.push(inst.id);
    } catch (e) {
      d.log?.warn(`ssh: could not attach the new key to instance ${inst.id}: ${(e as Error).message}`);
    }
  }
  d.log?.info(`ssh: registered key ${key.fingerprint}${attached.length ? ` and attached it to ${attached.join(', ')}` : ''}`);
  return { record, attached };
}
