// SSH key schemas: the account's keys and an instance's keys in every shape the service's
// versions send, and the body of the key calls (one OpenSSH public key line, never a private key).
import * as z from 'zod/mini';
import type { AccountSshKey, InstanceSshKey } from './types';
import { parsePublicKeyLine } from './sshKeyFormat';
import { lenientBy, lnum, lstr, requiredInt } from './schemaBasics';

// ---------------------------------------------------------------- SSH keys

/** A time as seconds since the epoch: a number, a numeric string or a date string. */
const epochish = lenientBy((v) => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string' || !v.trim()) return undefined;
  if (Number.isFinite(Number(v))) return Number(v);
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
});

/** One account key; the key text arrives as `public_key` or `key` depending on the version. */
export const accountSshKeySchema = z.pipe(
  z.looseObject({ id: requiredInt, user_id: lnum, public_key: lstr, key: lstr, ssh_key: lstr, created_at: epochish, deleted_at: epochish }),
  z.transform((w, ctx): AccountSshKey => {
    const text = w.public_key ?? w.key ?? w.ssh_key;
    if (typeof text !== 'string') {
      ctx.issues.push({ code: 'custom', input: w, path: ['public_key'], message: 'missing key text' });
      return z.NEVER;
    }
    const k: AccountSshKey = { id: w.id, public_key: text.trim() };
    if (typeof w.user_id === 'number') k.user_id = w.user_id;
    if (typeof w.created_at === 'number') k.created_at = w.created_at;
    if (w.deleted_at !== undefined) k.deleted_at = w.deleted_at;
    return k;
  }),
);

/** A bare array, or `{ssh_keys: [...]}` (some versions); deleted keys are left out. */
export const accountSshKeyListSchema = z.pipe(
  z.union([z.array(z.unknown()), z.looseObject({ ssh_keys: z.array(z.unknown()) }), z.looseObject({ keys: z.array(z.unknown()) })]),
  z.transform((w, ctx): AccountSshKey[] => {
    const rows: unknown[] = Array.isArray(w) ? w : 'ssh_keys' in w ? (w.ssh_keys as unknown[]) : (w as { keys: unknown[] }).keys;
    const out: AccountSshKey[] = [];
    rows.forEach((row, i) => {
      const r = z.safeParse(accountSshKeySchema, row);
      if (!r.success) {
        for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: [i, ...issue.path] } as never);
        return;
      }
      if (r.data.deleted_at == null) out.push(r.data);
    });
    return out;
  }),
);

/** `{success, key: {...}}` (also a bare key record). */
export const accountSshKeyResultSchema = z.pipe(
  z.looseObject({ key: z.optional(z.unknown()), ssh_key: z.optional(z.unknown()) }),
  z.transform((w, ctx): AccountSshKey => {
    const raw = w.key && typeof w.key === 'object' ? w.key : w.ssh_key && typeof w.ssh_key === 'object' ? w.ssh_key : w;
    const r = z.safeParse(accountSshKeySchema, raw);
    if (!r.success) {
      for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: ['key', ...issue.path] } as never);
      return z.NEVER;
    }
    return r.data;
  }),
);

const instanceSshKeyRow = z.pipe(
  z.looseObject({ id: requiredInt, name: lstr, public_key: lstr, key: lstr, ssh_key: lstr }),
  z.transform((w, ctx): InstanceSshKey => {
    const text = w.public_key ?? w.key ?? w.ssh_key;
    if (typeof text !== 'string') {
      ctx.issues.push({ code: 'custom', input: w, path: ['public_key'], message: 'missing key text' });
      return z.NEVER;
    }
    return { id: w.id, public_key: text.trim(), ...(w.name ? { name: w.name } : {}) };
  }),
);

/** `{success, ssh_keys: "<JSON text of [{id, name, public_key}]>"}`; a real array is accepted too. */
export const instanceSshKeyListSchema = z.pipe(
  z.looseObject({ ssh_keys: z.union([z.string(), z.array(z.unknown()), z.null()]) }),
  z.transform((w, ctx): InstanceSshKey[] => {
    let rows: unknown = w.ssh_keys ?? [];
    if (typeof rows === 'string') {
      try {
        rows = rows.trim() ? JSON.parse(rows) : [];
      } catch {
        ctx.issues.push({ code: 'custom', input: w.ssh_keys, path: ['ssh_keys'], message: 'not JSON' });
        return z.NEVER;
      }
    }
    const r = z.safeParse(z.array(instanceSshKeyRow), rows);
    if (!r.success) {
      for (const issue of r.error.issues) ctx.issues.push({ ...issue, path: ['ssh_keys', ...issue.path] } as never);
      return z.NEVER;
    }
    return r.data;
  }),
);

/** The body of the key calls: exactly one OpenSSH public key line (never a private key). */
export const sshKeyRequestSchema = z.looseObject({
  ssh_key: z.string('must be a string').check(
    z.refine((t) => !/PRIVATE KEY/.test(t), 'is a private key; send the public key (the .pub file) instead'),
    z.refine((t) => /PRIVATE KEY/.test(t) || !!parsePublicKeyLine(t), 'must be one OpenSSH public key line, like "ssh-ed25519 AAAA… comment"'),
  ),
});
