// API key handling: the one owner of the stored key (apiKeyOwner: checked with GET
// /users/current/ before anything is saved, stored, then given to the connection; the lint lets no
// other file store it or set it on the connection), and the official CLI's key for a one-click
// import. Plain TypeScript (unit-tested).
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { User } from '../api/types';
import type { ApiKeyPort, ApiKeySaveResult, SecretStore } from '../core/ports';
import type { ConnectionState } from '../core/connection';
import { describeError, errorKind } from '../core/describeError';
import * as l10n from '@vscode/l10n';

const API_KEY_SECRET = 'apiKey';

/** Trim whitespace and surrounding quotes; undefined when nothing usable is left. */
export function normalizeApiKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let k = raw.trim();
  if ((k.startsWith('"') && k.endsWith('"')) || (k.startsWith("'") && k.endsWith("'"))) k = k.slice(1, -1).trim();
  return k.length > 0 ? k : undefined;
}

/** A reason the text cannot be an API key (without echoing it), or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (/\s/.test(key)) return l10n.t('An API key has no spaces or line breaks. Copy the key again from your account page.');
  if (key.length < 8) return l10n.t('That is too short to be an API key. Copy the whole key from your account page.');
  if (key.length > 512) return l10n.t('That is too long to be an API key. Copy only the key from your account page.');
  return undefined;
}

export type KeyValidator = (key: string) => Promise<User>;

/** Validates first; stores the key only when the service accepted it. */
async function validateAndStore(raw: string | undefined, secrets: SecretStore, validate: KeyValidator): Promise<ApiKeySaveResult> {
  const key = normalizeApiKey(raw);
  if (!key) return { ok: false, rejected: false, message: l10n.t('No API key was given, so nothing was saved. Paste the key from your account page.') };
  const problem = apiKeyProblem(key);
  if (problem) return { ok: false, rejected: true, message: l10n.t('{0} Nothing was saved.', problem) };
  let user: User;
  try {
    user = await validate(key);
  } catch (e) {
    if (errorKind(e) === 'auth') {
      return {
        ok: false,
        rejected: true,
        message: l10n.t(
          'The service rejected this API key (it is wrong, revoked or expired), so it was not saved. Create or copy a key on your account page and try again.',
        ),
      };
    }
    return { ok: false, rejected: false, message: l10n.t('Could not check the API key, so it was not saved: {0}', describeError(e)) };
  }
  await secrets.store(API_KEY_SECRET, key);
  return { ok: true, user };
}

/** The owner of the API key, and what the wiring needs beyond the port: the stored key read into the connection. */
export interface ApiKeyOwner extends ApiKeyPort {
  /** Reads the stored key into the connection: at start, and when `secretName` (any secret that changed, in any window) is the key's. */
  reload(secretName?: string): Promise<void>;
}

/** The one owner of the API key: the only code that stores it and sets it on the connection (store first, then connection). */
export function apiKeyOwner(secrets: SecretStore, conn: Pick<ConnectionState, 'setApiKey'>, check: KeyValidator): ApiKeyOwner {
  return {
    async save(raw) {
      const r = await validateAndStore(raw, secrets, check);
      if (r.ok) conn.setApiKey(normalizeApiKey(raw));
      return r;
    },
    async clear() {
      await secrets.delete(API_KEY_SECRET);
      conn.setApiKey(undefined);
    },
    async reload(secretName) {
      if (secretName === undefined || secretName === API_KEY_SECRET) conn.setApiKey(await secrets.get(API_KEY_SECRET));
    },
  };
}

export interface CliKeyFound {
  key: string;
  /** Where it came from, for the confirmation prompt (never the key itself). */
  source: string;
}

export interface CliKeyEnv {
  env?: Record<string, string | undefined>;
  home?: string;
  readText?: (path: string) => Promise<string>;
}

/** The paths the official CLI uses, newest first. */
export function cliKeyPaths(env: Record<string, string | undefined>, home: string): string[] {
  const xdg = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() ? env.XDG_CONFIG_HOME : join(home, '.config');
  return [join(xdg, 'vastai', 'vast_api_key'), join(home, '.vast_api_key')];
}

/** VAST_API_KEY first (as the CLI does), then its key files. */
export async function findCliKey(opts: CliKeyEnv = {}): Promise<CliKeyFound | undefined> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const readText = opts.readText ?? ((p: string) => readFile(p, 'utf8'));
  const fromEnv = normalizeApiKey(env.VAST_API_KEY);
  if (fromEnv) return { key: fromEnv, source: l10n.t('the VAST_API_KEY environment variable') };
  for (const p of cliKeyPaths(env, home)) {
    let text: string;
    try {
      text = await readText(p);
    } catch {
      continue;
    }
    const key = normalizeApiKey(text.split(/\r?\n/).find((l) => l.trim().length > 0));
    if (key) return { key, source: p };
  }
  return undefined;
}
