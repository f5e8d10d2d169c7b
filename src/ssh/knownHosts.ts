// Host keys are pinned per instance, not per address: each entry names its own HostKeyAlias, so
// OpenSSH records and checks the key under the instance's name, and a [host]:port the service
// recycled for another machine never meets the old machine's key ("host key changed", which
// once made Keep Running fail and let the guard stop the new machine). And the lines of a
// destroyed (or moved) instance are dropped from the extension's own known_hosts.
import { createHmac } from 'node:crypto';

/**
 * The name an instance's host key is pinned under: its id and the service it belongs to (two
 * servers may both have an instance 7). Plain characters only: it is written into an SSH config.
 */
export function hostKeyAlias(id: number, origin: string | undefined, proxy = false): string {
  const o = (origin ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return `gpu-rental-${o ? `${o}-` : ''}${id}${proxy ? '-proxy' : ''}`;
}

/** The name OpenSSH records for a host: plain for port 22, else `[host]:port`. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function patternMatches(pattern: string, names: Set<string>): boolean {
  if (pattern.startsWith('|1|')) {
    // HashKnownHosts: |1|base64(salt)|base64(HMAC-SHA1(salt, name))
    const [, , salt, hash] = pattern.split('|');
    if (!salt || !hash) return false;
    const key = Buffer.from(salt, 'base64');
    for (const n of names) if (createHmac('sha1', key).update(n).digest('base64') === hash) return true;
    return false;
  }
  return names.has(pattern.toLowerCase());
}

/**
 * Returns `text` without the lines for any of `targets`; every other byte is kept
 * (comments, line endings, markers such as @cert-authority on other hosts).
 */
export function removeKnownHosts(text: string, targets: Array<{ host: string; port: number } | { alias: string }>): { text: string; removed: number } {
  // An alias is recorded as it is, without a port.
  const names = new Set(targets.map((t) => ('alias' in t ? t.alias : knownHostsName(t.host, t.port)).toLowerCase()));
  let removed = 0;
  const parts = text.split(/(?<=\n)/); // keep each line's own terminator
  const kept = parts.filter((line) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) return true;
    const fields = trimmed.split(/\s+/);
    const hostField = fields[0]?.startsWith('@') ? fields[1] : fields[0];
    if (!hostField) return true;
    const hit = hostField.split(',').some((p) => patternMatches(p, names));
    if (hit) removed++;
    return !hit;
  });
  return { text: kept.join(''), removed };
}
