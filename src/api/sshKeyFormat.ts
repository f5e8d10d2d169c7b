// One OpenSSH public key line ("<type> <base64> [comment]"): what the service's SSH-key calls
// take, what ~/.ssh/*.pub files hold. Shared by request validation and local key discovery.
import { createHash } from 'node:crypto';

export const PUBLIC_KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'ssh-dss',
] as const;

export interface PublicKeyLine {
  type: string;
  /** The key material (the base64 field, decoded). Two lines are the same key when these match. */
  blob: Buffer;
  base64: string;
  comment: string;
}

const B64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses one public key line; undefined when it is not one (several lines, a private key,
 * authorized_keys options, an unknown type, base64 that does not encode a key of that type).
 */
export function parsePublicKeyLine(text: string): PublicKeyLine | undefined {
  const line = text.replace(/^\uFEFF/, '').trim();
  if (!line || /[\r\n\0]/.test(line) || line.length > 16384) return undefined;
  const m = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m) return undefined;
  const [, type, base64, comment] = m as unknown as [string, string, string, string | undefined];
  if (!(PUBLIC_KEY_TYPES as readonly string[]).includes(type) || !B64_RE.test(base64) || base64.length % 4 !== 0) return undefined;
  const blob = Buffer.from(base64, 'base64');
  // The blob starts with its own type as an SSH string: uint32 length, then the name.
  if (blob.length < 4 + type.length) return undefined;
  const n = blob.readUInt32BE(0);
  if (n !== type.length || blob.subarray(4, 4 + n).toString('latin1') !== type) return undefined;
  return { type, blob, base64, comment: (comment ?? '').trim() };
}

/** `SHA256:<unpadded base64>`, as `ssh-keygen -lf` prints it. */
export function publicKeyFingerprint(k: Pick<PublicKeyLine, 'blob'>): string {
  return `SHA256:${createHash('sha256').update(k.blob).digest('base64').replace(/=+$/, '')}`;
}

/** True when both lines carry the same key material (comments do not count). */
/** @internal test */
export function samePublicKey(a: string, b: string): boolean {
  const x = parsePublicKeyLine(a);
  const y = parsePublicKeyLine(b);
  return !!x && !!y && x.type === y.type && x.blob.equals(y.blob);
}
