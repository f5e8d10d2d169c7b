// The one loopback rule: which service URLs are on this computer. They are never sent through a
// proxy (whatever http.proxy, HTTP_PROXY or NO_PROXY say: NO_PROXY=localhost does not name
// 127.0.0.1 or [::1]), and they are the only ones a key may be sent to over plain http.

/** localhost (and *.localhost), 127.0.0.0/8, ::1 and ::ffff:127.x.y.z, bracketed or not. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127(\.\d{1,3}){3}$/.test(h)) return true;
  if (h === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(h) || h === '0:0:0:0:0:0:0:1') return true;
  return /^::ffff:127(\.\d{1,3}){3}$/.test(h) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}

export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** A key may go to `url` only over TLS, or over plain http to this computer. */
export function mayCarryKey(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
  } catch {
    return false;
  }
}
