// Format checks run before anything is sent, so a typo costs no failed attempt
// (failed attempts count towards a method lockout).

import { BACKUP_CODE_RE, E164_RE, OTP_RE, TFA_LABEL_MAX as MAX_LABEL } from '../api/tfaFormats';

/** Returns an error sentence, or undefined when the 6-digit code is well formed. */
export function validateOtp(v: string): string | undefined {
  const s = v.replace(/\s/g, '');
  return OTP_RE.test(s) ? undefined : 'Enter the 6-digit code (digits only).';
}

export function validateBackupCode(v: string): string | undefined {
  return BACKUP_CODE_RE.test(v.trim()) ? undefined : 'Enter a backup code in the form XXXX-XXXX-XXXX.';
}

export function validatePhone(v: string): string | undefined {
  const s = normalizePhone(v);
  return E164_RE.test(s) ? undefined : 'Enter the number in international E.164 format: + then country code and number, for example +14155550123.';
}

export function validateLabel(v: string): string | undefined {
  if (v.trim().length > MAX_LABEL) return `Labels can be at most ${MAX_LABEL} characters (this one has ${v.trim().length}).`;
  return undefined;
}

export function normalizeOtp(v: string): string {
  return v.replace(/\s/g, '');
}
export function normalizeBackupCode(v: string): string {
  return v.trim().toUpperCase();
}
/** Drops spaces, dashes, dots and brackets people type inside numbers. */
export function normalizePhone(v: string): string {
  return v.trim().replace(/[\s\-().]/g, '');
}
