// Format checks run before anything is sent, so a typo costs no failed attempt
// (failed attempts count towards a method lockout).

import { BACKUP_CODE_RE, E164_RE, OTP_RE, TFA_LABEL_MAX as MAX_LABEL } from '../api/tfaFormats';
import * as l10n from '@vscode/l10n';

/** Returns an error sentence, or undefined when the 6-digit code is well formed. */
export function validateOtp(v: string): string | undefined {
  const s = v.replace(/\s/g, '');
  return OTP_RE.test(s) ? undefined : l10n.t('Enter the 6-digit code (digits only).');
}

export function validateBackupCode(v: string): string | undefined {
  return BACKUP_CODE_RE.test(v.trim()) ? undefined : l10n.t('Enter a backup code in the form XXXX-XXXX-XXXX.');
}

export function validatePhone(v: string): string | undefined {
  const s = normalizePhone(v);
  return E164_RE.test(s) ? undefined : l10n.t('Enter the number in international E.164 format: + then country code and number, for example +14155550123.');
}

export function validateLabel(v: string): string | undefined {
  if (v.trim().length > MAX_LABEL) return l10n.t('Labels can be at most {0} characters (this one has {1}).', MAX_LABEL, v.trim().length);
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
