// The account and two-factor authentication as everything above the API layer sees them
// (accountSchemas.ts parses the wire into them), and the 2FA request bodies.

export interface User {
  id: number;
  email?: string | null;
  /** The account balance: the seed's `credit`, or the live service's `balance`. */
  credit?: number | null;
  ssh_key?: string | null;
  /** The seed's `full_name`, or the live service's `fullname`. */
  full_name?: string | null;
  tfa_status?: 'enabled' | 'disabled' | 'legacy' | string | null;
  email_verified_at?: number | string | null;
}

export type TfaMethodType = 'sms' | 'totp';
export type TfaVerifyMethod = 'sms' | 'totp' | 'email';

export interface TfaMethod {
  id: number;
  user_id?: number;
  method: TfaMethodType | string;
  label?: string | null;
  phone_number?: string | null;
  is_primary?: boolean;
  fail_count?: number;
  locked_until?: number | null;
  created_at?: number | null;
  last_used?: number | null;
}

export interface TfaStatus {
  success?: boolean;
  tfa_enabled: boolean;
  methods: TfaMethod[];
  backup_codes_remaining: number;
  new_method_authorized: boolean;
}

/** How a 2FA step is verified: by a method's code, or by a backup code. */
export interface TfaVerification {
  tfa_method?: TfaVerifyMethod;
  code?: string;
  secret?: string;
  tfa_method_id?: number;
  backup_code?: string;
}

export interface TfaLoginRequest extends TfaVerification {
  admin?: boolean;
}
export interface TfaLoginResult extends User {
  /** Secret: never log or display. */
  session_key?: string;
  backup_codes_remaining?: number;
  legacy_tfa_user?: boolean;
}

export interface TfaRemoveRequest extends TfaVerification {
  target_id?: number;
}
export interface TfaRemoveResult {
  msg: string;
  remaining_methods?: number;
}

export interface TfaSendResult {
  success?: boolean;
  msg?: string;
  /** The challenge id (tfa_secret) to pass back on the completing call. */
  secret: string;
}

export interface TfaSmsRequest {
  phone_number?: string;
  tfa_method_id?: number;
  secret?: string;
}

export interface TotpSetupResult {
  /** Secret: never log. */
  secret: string;
  provisioning_uri: string;
}

export interface AuthorizeNewMethodRequest {
  tfa_method?: TfaVerifyMethod;
  tfa_method_id?: number;
  backup_code?: string;
}
export interface AuthorizeNewMethodResult {
  success: boolean;
  secret?: string;
  msg?: string;
}

export interface ConfirmNewMethodRequest {
  tfa_method: TfaMethodType;
  code: string;
  secret: string;
  phone_number?: string;
  label?: string;
}
export interface ConfirmNewMethodResult {
  success: boolean;
  msg: string;
  /** Secret: shown to the user once, never logged or stored. */
  backup_codes?: string[];
}

export interface TfaUpdateRequest {
  tfa_method_id?: number;
  tfa_method?: TfaMethodType;
  label?: string;
  is_primary?: boolean;
}
export interface TfaUpdateResult {
  success: boolean;
  msg: string;
  method?: Partial<TfaMethod> | null;
}

export interface RegenBackupCodesResult {
  msg: string;
  backup_codes: string[];
}
