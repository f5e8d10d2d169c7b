// Instance logs come from the host: the daemon log prints the container's environment and
// onstart scripts echo whatever they like. Mask them harder than a log line of our own.
import { redact } from './redact';
import * as l10n from '@vscode/l10n';

const MASK = '***';
// NAME=value where the name says secret: CONTAINER_API_KEY=…, HF_TOKEN="…", DB_PASSWORD='…'
const ENV_SECRET =
  /\b([A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Za-z0-9_]*\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)/gi;
// Well-known token shapes: Hugging Face, GitHub, OpenAI-style, AWS access key ids, Vast-style 64-hex keys.
const TOKEN_SHAPES =
  /\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|(?<!sha256:)[0-9a-f]{64})\b/g;

/** The text of a log with the known secret values and secret-looking assignments masked. */
export function redactLog(text: string, secrets: ReadonlyArray<string | undefined>): string {
  return redact(text, secrets).replace(ENV_SECRET, `$1${MASK}`).replace(TOKEN_SHAPES, MASK);
}

/** Why a result_url from the service must not be fetched, or undefined when it may. */
export function resultUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return l10n.t('the service gave a log address that is not a URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return l10n.t('the service gave a log address with the scheme {0}, not http(s)', u.protocol.replace(/:$/, ''));
  if (u.username || u.password) return l10n.t('the service gave a log address with credentials in it');
  return undefined;
}
