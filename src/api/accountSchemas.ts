// Account and two-factor authentication: the user record (the seed's and the live service's
// names), the 2FA answers, and the 2FA request bodies checked strictly before sending.
import * as z from 'zod/mini';
import { BACKUP_CODE_RE, E164_RE, OTP_RE, TFA_LABEL_MAX } from './tfaFormats';
import type {
  AuthorizeNewMethodResult,
  ConfirmNewMethodResult,
  RegenBackupCodesResult,
  TfaLoginResult,
  TfaMethod,
  TfaRemoveResult,
  TfaSendResult,
  TfaStatus,
  TfaUpdateResult,
  TotpSetupResult,
  User,
} from './accountTypes';
import { lbool, lenient, lnum, lstr, lstrArray, requiredInt } from './schemaBasics';

// ---------------------------------------------------------------- user

const userShape = {
  id: lnum,
  email: lstr,
  credit: lnum,
  balance: lnum,
  ssh_key: lstr,
  full_name: lstr,
  fullname: lstr,
  tfa_status: lstr,
  email_verified_at: lenient(z.union([z.number(), z.string()])),
};
function userFrom(w: Record<string, unknown>): User {
  const u: Record<string, unknown> = {};
  for (const k of Object.keys(userShape)) if (w[k] !== undefined && k !== 'balance' && k !== 'fullname') u[k] = w[k];
  u.id = typeof w.id === 'number' ? w.id : 0;
  // The live service's names (balance, fullname) beside the seed's (credit, full_name).
  if (typeof u.credit !== 'number' && typeof w.balance === 'number') u.credit = w.balance;
  if (typeof u.full_name !== 'string' && typeof w.fullname === 'string') u.full_name = w.fullname;
  return u as unknown as User;
}

export const userSchema = z.pipe(
  z.looseObject(userShape),
  z.transform((w): User => userFrom(w)),
);

export const tfaLoginResultSchema = z.pipe(
  z.looseObject({ ...userShape, session_key: lstr, backup_codes_remaining: lnum, legacy_tfa_user: lbool }),
  z.transform((w): TfaLoginResult => {
    const r: TfaLoginResult = userFrom(w);
    if (w.session_key) r.session_key = w.session_key;
    if (typeof w.backup_codes_remaining === 'number') r.backup_codes_remaining = w.backup_codes_remaining;
    if (w.legacy_tfa_user === true) r.legacy_tfa_user = true;
    return r;
  }),
);
// ---------------------------------------------------------------- 2FA responses
export const tfaMethodSchema = z.pipe(
  z.looseObject({
    id: requiredInt,
    user_id: lnum,
    method: z.catch(z.string(), 'unknown'),
    label: lstr,
    phone_number: lstr,
    is_primary: lbool,
    fail_count: lnum,
    locked_until: lnum,
    created_at: lnum,
    last_used: lnum,
  }),
  z.transform((w): TfaMethod => {
    const m: TfaMethod = { id: w.id, method: w.method };
    if (w.user_id != null) m.user_id = w.user_id;
    if (w.label !== undefined) m.label = w.label;
    if (w.phone_number !== undefined) m.phone_number = w.phone_number;
    if (w.is_primary != null) m.is_primary = w.is_primary;
    if (w.fail_count != null) m.fail_count = w.fail_count;
    if (w.locked_until !== undefined) m.locked_until = w.locked_until;
    if (w.created_at !== undefined) m.created_at = w.created_at;
    if (w.last_used !== undefined) m.last_used = w.last_used;
    return m;
  }),
);

export const tfaStatusSchema = z.pipe(
  z.looseObject({
    success: lbool,
    tfa_enabled: lbool,
    methods: z.catch(z.optional(z.nullable(z.array(tfaMethodSchema))), undefined),
    backup_codes_remaining: lnum,
    new_method_authorized: lbool,
  }),
  z.transform((w): TfaStatus => ({
    ...(typeof w.success === 'boolean' ? { success: w.success } : {}),
    tfa_enabled: w.tfa_enabled ?? false,
    methods: w.methods ?? [],
    backup_codes_remaining: w.backup_codes_remaining ?? 0,
    new_method_authorized: w.new_method_authorized ?? false,
  })),
);
export const tfaSendResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, secret: z.string().check(z.minLength(1)) }),
  z.transform((w): TfaSendResult => {
    const r: TfaSendResult = { secret: w.secret };
    if (typeof w.success === 'boolean') r.success = w.success;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);
export const totpSetupSchema = z.pipe(
  z.looseObject({ secret: z.string().check(z.minLength(1)), provisioning_uri: z.string() }),
  z.transform((w): TotpSetupResult => ({ secret: w.secret, provisioning_uri: w.provisioning_uri })),
);

export const authorizeNewMethodResultSchema = z.pipe(
  z.looseObject({ success: lbool, secret: lstr, msg: lstr }),
  z.transform((w): AuthorizeNewMethodResult => {
    const r: AuthorizeNewMethodResult = { success: w.success ?? true };
    if (w.secret) r.secret = w.secret;
    if (typeof w.msg === 'string') r.msg = w.msg;
    return r;
  }),
);

export const confirmNewResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, backup_codes: lstrArray }),
  z.transform((w): ConfirmNewMethodResult => {
    const r: ConfirmNewMethodResult = { success: w.success ?? true, msg: w.msg ?? '' };
    if (w.backup_codes) r.backup_codes = w.backup_codes;
    return r;
  }),
);
export const tfaUpdateResultSchema = z.pipe(
  z.looseObject({ success: lbool, msg: lstr, method: z.optional(z.unknown()) }),
  z.transform((w): TfaUpdateResult => {
    const r: TfaUpdateResult = { success: w.success ?? true, msg: w.msg ?? '' };
    if (w.method === null) r.method = null;
    else if (w.method && typeof w.method === 'object') {
      const p = z.safeParse(tfaMethodSchema, w.method);
      r.method = p.success ? p.data : (w.method as Partial<TfaMethod>);
    }
    return r;
  }),
);

export const tfaRemoveResultSchema = z.pipe(
  z.looseObject({ msg: lstr, remaining_methods: lnum }),
  z.transform((w): TfaRemoveResult => {
    const r: TfaRemoveResult = { msg: w.msg ?? '' };
    if (typeof w.remaining_methods === 'number') r.remaining_methods = w.remaining_methods;
    return r;
  }),
);
export const regenBackupCodesSchema = z.pipe(
  z.looseObject({ msg: lstr, backup_codes: z.array(z.string()) }),
  z.transform((w): RegenBackupCodesResult => ({ msg: w.msg ?? '', backup_codes: w.backup_codes })),
);

// ---------------------------------------------------------------- 2FA requests

const MSG = {
  code: 'must be the 6-digit code (digits only, no spaces)',
  backup: 'must be a backup code in the form XXXX-XXXX-XXXX',
  phone: 'must be in international E.164 format, for example +14155550123 (no spaces or dashes)',
  label: `must be at most ${TFA_LABEL_MAX} characters`,
  method: "must be 'sms', 'totp' or 'email'",
  newMethod: "must be 'sms' or 'totp' (e-mail cannot be added as a method)",
  id: 'must be a positive whole number',
};

const code6 = z.string(MSG.code).check(z.regex(OTP_RE, MSG.code));
const backupCode = z.string(MSG.backup).check(z.regex(BACKUP_CODE_RE, MSG.backup));
const phone = z.string(MSG.phone).check(z.regex(E164_RE, MSG.phone));
const tfaLabel = z.string().check(z.maxLength(TFA_LABEL_MAX, MSG.label));
const methodId = z.number(MSG.id).check(z.int(MSG.id), z.positive(MSG.id));
const verifyMethod = z.enum(['sms', 'totp', 'email'], MSG.method);
const newMethod = z.enum(['sms', 'totp'], MSG.newMethod);
const nonEmpty = z.string().check(z.minLength(1, 'must not be empty'));
const verificationShape = {
  tfa_method: z.optional(verifyMethod),
  code: z.optional(code6),
  secret: z.optional(nonEmpty),
  tfa_method_id: z.optional(methodId),
  backup_code: z.optional(backupCode),
};
/** With a backup code no method code is needed; otherwise a 6-digit code is. */
function needsCodeOrBackup(v: { code?: string; backup_code?: string }): boolean {
  return v.code !== undefined || v.backup_code !== undefined;
}
const codeOrBackup = z.refine<{ code?: string; backup_code?: string }>(needsCodeOrBackup, {
  message: 'give either the 6-digit code or a backup code',
  path: ['code'],
});
export const tfaVerificationSchema = z.strictObject(verificationShape).check(codeOrBackup);
export const tfaLoginRequestSchema = z.strictObject({ ...verificationShape, admin: z.optional(z.boolean()) }).check(codeOrBackup);
export const tfaRemoveRequestSchema = z.strictObject({ ...verificationShape, target_id: z.optional(methodId) }).check(
  codeOrBackup,
  z.refine((v) => v.backup_code === undefined || v.target_id !== undefined, {
    message: 'is required when removing with a backup code (the id of the method to remove)',
    path: ['target_id'],
  }),
);
export const tfaEmailRequestSchema = z.strictObject({ secret: z.optional(nonEmpty) });
export const tfaSmsRequestSchema = z.strictObject({
  phone_number: z.optional(phone),
  tfa_method_id: z.optional(methodId),
  secret: z.optional(nonEmpty),
});
export const authorizeNewMethodRequestSchema = z.strictObject({
  tfa_method: z.optional(verifyMethod),
  tfa_method_id: z.optional(methodId),
  backup_code: z.optional(backupCode),
});
export const authorizeConfirmRequestSchema = z.strictObject({ code: code6, secret: nonEmpty });
export const confirmNewRequestSchema = z
  .strictObject({
    tfa_method: newMethod,
    code: code6,
    secret: nonEmpty,
    phone_number: z.optional(phone),
    label: z.optional(tfaLabel),
  })
  .check(
    z.refine((v) => v.tfa_method !== 'sms' || v.phone_number !== undefined, {
      message: 'is required for an SMS method',
      path: ['phone_number'],
    }),
  );
export const tfaUpdateRequestSchema = z
  .strictObject({
    tfa_method_id: z.optional(methodId),
    tfa_method: z.optional(newMethod),
    label: z.optional(tfaLabel),
    is_primary: z.optional(z.boolean()),
  })
  .check(
    z.refine((v) => v.tfa_method_id !== undefined || v.tfa_method !== undefined, {
      message: 'give the method id (or its type when you have only one of that type)',
      path: ['tfa_method_id'],
    }),
  );
