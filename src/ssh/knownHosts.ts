// Drops the host keys of a destroyed (or moved) instance from the extension's own
// known_hosts, so a recycled [host]:port does not fail with "host key changed".
import { createHmac } from 'node:crypto';

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
export function removeKnownHosts(text: string, targets: Array<{ host: string; port: number }>): { text: string; removed: number } {
  const names = new Set(targets.map((t) => knownHostsName(t.host, t.port).toLowerCase()));
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
