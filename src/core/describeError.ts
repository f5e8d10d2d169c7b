// The one reader of failures: what kind of ApiError a value is, and one sentence for the user
// (what happened, what to do next). Built on api/errors.ts isApiError, which also recognises an
// ApiError made by another bundle's copy of the class (dist/transport.js, dist/schemas.js).
import { isApiError, type ApiError } from '../api/errors';
import * as l10n from '@vscode/l10n';
import { redact } from '../api/redact';

/** The ApiError `e` is, if it is one. */
export function apiErrorOf(e: unknown): ApiError | undefined {
  return isApiError(e) ? e : undefined;
}

/** The kind of an ApiError ('rate_limited', 'network', 'auth', ...), if `e` is one. */
export function errorKind(e: unknown): string | undefined {
  return apiErrorOf(e)?.kind;
}

/** The HTTP status of an ApiError, if `e` is one and has one. */
export function errorStatus(e: unknown): number | undefined {
  return apiErrorOf(e)?.status;
}

/** The service's error code (`no_such_ask`, `2fa_expired`, ...) of an ApiError, if any. */
export function errorCode(e: unknown): string | undefined {
  return apiErrorOf(e)?.code;
}

export function describeError(e: unknown): string {
  const api = apiErrorOf(e);
  if (api) {
    try {
      return redact(api.userMessage());
    } catch {
      // fall through to the generic text
    }
  }
  const msg = e instanceof Error ? e.message : String(e);
  return redact(msg || l10n.t('Something went wrong. Check the "GPU Rental" output channel for details and try again.'));
}
