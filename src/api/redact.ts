// Masks secrets in any text before it reaches a log, an error message or test output.
// Pure string work so every layer (and the transport bundle) can use it.
import type { Logger } from './types';

const MASK = '***';

/** Keys whose values are secrets wherever they appear (JSON, query strings, key=value text). */
const SECRET_KEYS = [
  'jupyter_token',
  'instance_api_key',
  'session_key',
  'tfa_secret',
  'secret',
  'backup_codes',
  'backup_code',
  'code',
  'provisioning_uri',
  'password',
  'docker_login_pass',
  'image_login',
  'api_key',
  'token',
];
const KEY_ALT = SECRET_KEYS.join('|');

// "key": "value" (value may contain escaped quotes)
const JSON_STRING = new RegExp(`("(?:${KEY_ALT})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
// "key": 123456 (a numeric code)
const JSON_NUMBER = new RegExp(`("(?:${KEY_ALT})"\\s*:\\s*)-?\\d[\\d.eE+-]*`, 'gi');
// "backup_codes": ["…", …]
const JSON_ARRAY = new RegExp(`("(?:${KEY_ALT})"\\s*:\\s*)\\[[^\\]]*\\]`, 'gi');
// key=value in query strings and plain text (not "status code: 404", which has no '=')
const KEY_EQUALS = new RegExp(`(\\b(?:${KEY_ALT})=)[^\\s&,;"'\\]}]+`, 'gi');
const BEARER = /(\bBearer\s+)[^\s"',;]+/gi;
const OTPAUTH = /otpauth:\/\/[^\s"'<>]+/gi;
// Backup codes have the shape XXXX-XXXX-XXXX; the look-arounds keep UUID fragments intact.
const BACKUP_CODE = /(?<![\w-])[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}(?![\w-])/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Secrets this long are also found re-cased or split by whitespace (a wrapped message or log line). */
const LOOSE_MIN = 12;

/** The secret with any case and any whitespace (line breaks too) between its characters. */
function loosePattern(s: string): RegExp {
  return new RegExp([...s].map(escapeRegExp).join('\\s*'), 'gi');
}

/** Masks `s` where it appears exactly, URL-encoded, or (when long) re-cased or split by whitespace. */
function maskSecret(out: string, s: string, flat: string): string {
  out = out.replace(new RegExp(escapeRegExp(s), 'g'), MASK);
  // Also the URL-encoded and JSON-escaped forms a secret takes inside a URL or body.
  const enc = encodeURIComponent(s);
  if (enc !== s) out = out.replace(new RegExp(escapeRegExp(enc), 'g'), MASK);
  // The service may echo a key upper-cased, or wrapped over lines; the (cheap) test on the text
  // without case and whitespace keeps the loose pattern off texts that cannot hold it.
  if (s.length >= LOOSE_MIN && !/\s/.test(s) && flat.includes(s.toLowerCase())) out = out.replace(loosePattern(s), MASK);
  return out;
}

/**
 * Returns `text` with secrets masked: the given secret values (API key, session key, …) also
 * URL-encoded, re-cased or split by whitespace, bearer tokens, `api_key=` query values, values
 * of secret-named keys, otpauth:// URIs and backup-code-shaped strings.
 */
export function redact(text: string, extraSecrets: ReadonlyArray<string | undefined> = []): string {
  let out = String(text);
  // Longest first so a secret that contains another one is masked whole.
  const secrets = [...new Set(extraSecrets.filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length);
  const flat = secrets.some((s) => s.length >= LOOSE_MIN) ? out.toLowerCase().replace(/\s+/g, '') : '';
  for (const s of secrets) out = maskSecret(out, s, flat);
  out = out.replace(OTPAUTH, MASK);
  out = out.replace(JSON_ARRAY, `$1["${MASK}"]`);
  out = out.replace(JSON_STRING, `$1"${MASK}"`);
  out = out.replace(JSON_NUMBER, `$1"${MASK}"`);
  out = out.replace(KEY_EQUALS, `$1${MASK}`);
  out = out.replace(BEARER, `$1${MASK}`);
  out = out.replace(BACKUP_CODE, (m) => (m === 'XXXX-XXXX-XXXX' ? m : MASK));
  return out;
}

/** A Logger that redacts every line (with the currently known secret values) before `sink` sees it. */
export function createRedactingLogger(sink: Logger, knownSecrets: () => ReadonlyArray<string | undefined>): Logger {
  const wrap =
    (level: keyof Logger) =>
    (msg: string): void => {
      let secrets: ReadonlyArray<string | undefined> = [];
      try {
        secrets = knownSecrets();
      } catch {
        // a failing secret provider must not stop logging; the patterns still apply
      }
      sink[level](redact(msg, secrets));
    };
  return { trace: wrap('trace'), debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/**
 * A bounded set of secret values seen at runtime (session keys, instance keys, tokens in
 * responses) so later log lines mask them even where no pattern would catch them.
 */
export class SecretRegistry {
  private readonly values: string[] = [];
  constructor(private readonly max = 200) {}
  add(...secrets: ReadonlyArray<string | null | undefined>): void {
    for (const s of secrets) {
      if (typeof s !== 'string' || s.length < 4 || this.values.includes(s)) continue;
      this.values.push(s);
      if (this.values.length > this.max) this.values.shift();
    }
  }
  list(): string[] {
    return [...this.values];
  }
}
