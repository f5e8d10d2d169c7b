// RFC 4648 base32 and RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits), written for the
// simulator alone so a bug in the extension's own TOTP code cannot be mirrored here.
import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32, ignoring case, spaces, dashes and '=' padding. Throws on other characters. */
export function base32Decode(text: string): Uint8Array {
  const clean = text.toUpperCase().replace(/[\s=-]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const idx = ALPHABET.indexOf(ch);
    if (idx < 0) throw new Error('invalid base32 character');
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

export function hotp(key: Uint8Array, counter: number, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeUInt32BE(Math.floor(counter / 0x100000000), 0);
  msg.writeUInt32BE(counter >>> 0, 4);
  const mac = createHmac('sha1', key).update(msg).digest();
  const off = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[off]! & 0x7f) << 24) | ((mac[off + 1]! & 0xff) << 16) | ((mac[off + 2]! & 0xff) << 8) | (mac[off + 3]! & 0xff);
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The TOTP code of a base32 secret at a Unix time (seconds). */
export function totp(base32Secret: string, unixSeconds: number, digits = 6, step = 30): string {
  return hotp(base32Decode(base32Secret), Math.floor(unixSeconds / step), digits);
}

/** True when `code` matches at `unixSeconds` or one step either side. */
export function verifyTotp(base32Secret: string, code: string, unixSeconds: number): boolean {
  let key: Uint8Array;
  try {
    key = base32Decode(base32Secret);
  } catch {
    return false;
  }
  if (key.length === 0) return false;
  const counter = Math.floor(unixSeconds / 30);
  for (const d of [-1, 0, 1]) if (hotp(key, counter + d) === code) return true;
  return false;
}

export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}
