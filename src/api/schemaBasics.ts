// The tolerant building blocks of the response schemas (a number sent as a string, a field of
// the wrong type read as absent) and the strict request checking every request schema uses.
import * as z from 'zod/mini';
import type { PricingDetails, SimpleResult } from './types';
import * as l10n from '@vscode/l10n';

// ---------------------------------------------------------------- tolerant primitives

const numericString = z.pipe(
  z.string().check(z.refine((s) => s.trim() !== '' && Number.isFinite(Number(s)))),
  z.transform((s) => Number(s)),
);
/** A number, also when sent as a numeric string. */
export const numberish = z.union([z.number(), numericString]);
/** A required id-like integer (number or numeric string). */
export const requiredInt = z.pipe(numberish, z.number().check(z.int()));
/** Instance ids: the service numbers them from 1. A zero or negative id is a malformed answer. */
export const instanceId = z.pipe(numberish, z.number().check(z.int(), z.positive()));

/** Optional + nullable; a value of the wrong type becomes undefined instead of failing the record. */
export function lenient<T extends z.ZodMiniType>(s: T) {
  return z.catch(z.optional(z.nullable(s)), undefined);
}
/**
 * The same leniency for the ~90 plain fields of an instance or offer as one transform per field
 * instead of catch(optional(nullable(union(...)))): a list of 500 instances or 1,000 offers
 * parses about twice as fast (npm run bench, Scale row).
 */
export function lenientBy<T>(accept: (v: unknown) => T | undefined) {
  return z.optional(z.transform((v: unknown): T | null | undefined => (v === null ? null : accept(v))));
}
export const lnum = lenientBy((v) =>
  typeof v === 'number' ? (Number.isFinite(v) ? v : undefined) : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined,
);
export const lstr = lenientBy((v) => (typeof v === 'string' ? v : undefined));
export const lbool = lenientBy((v) => (typeof v === 'boolean' ? v : v === 0 || v === 1 ? v === 1 : undefined));
export const lstrArray = lenient(z.array(z.string()));

export const pricing = lenient(
  z.pipe(
    z.record(z.string(), z.unknown()),
    z.transform((r): PricingDetails => {
      const out: PricingDetails = {};
      for (const k of ['gpuCostPerHour', 'diskHour', 'totalHour', 'discountTotalHour', 'discountedTotalPerHour'] as const) {
        const p = z.safeParse(numberish, r[k]);
        if (p.success) out[k] = p.data;
      }
      return out;
    }),
  ),
);

export const simpleResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr }),
  z.transform((w): SimpleResult => {
    const r: SimpleResult = {};
    if (typeof w.success === 'boolean') r.success = w.success;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);

// ---------------------------------------------------------------- request validation

/** Formats zod issues as "path: message" strings. */
export function formatIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: string[] }>): string[] {
  return issues.map((i) => {
    if (i.code === 'unrecognized_keys' && i.keys) return l10n.t('{0}: not a field of this request', i.keys.join(', '));
    const p = i.path.map(String).join('.');
    return p ? `${p}: ${i.message}` : i.message;
  });
}

/** Validates a request body with a schema; returns problems (empty when valid). */
export function validateWith(schema: z.ZodMiniType, value: unknown): string[] {
  const r = z.safeParse(schema, stripNulls(value));
  return r.success ? [] : formatIssues(r.error.issues as never);
}

/** `null` means "not given" on this service (the official CLI sends nulls); drop those keys. */
export function stripNulls<T>(v: T): T {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null && x !== undefined)) as T;
}
