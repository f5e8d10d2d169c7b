// The shapes of 2FA inputs, shared by the request schemas (checked before sending) and the
// prompts (checked while typing), so the two can never disagree. No zod here: the prompts
// load without the schema bundle.

/** A 6-digit verification code. */
export const OTP_RE = /^\d{6}$/;
/** A backup code: XXXX-XXXX-XXXX. */
export const BACKUP_CODE_RE = /^[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}$/;
/** An E.164 phone number: + then country code and number. */
export const E164_RE = /^\+[1-9]\d{6,14}$/;
/** Longest label of a 2FA method. */
export const TFA_LABEL_MAX = 30;
