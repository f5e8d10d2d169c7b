// The API layer's public surface (no undici here: the transport loads lazily).
export { createApiClient, closeApiTransport, DEFAULT_BASE_URL } from './client';
export type { ApiClientOptions, RetryOptions } from './client';
export { ApiError, isApiError, KNOWN_ERROR_CODES } from './errors';
export { redact, createRedactingLogger } from './redact';
export { reconcileCreation } from './reconcile';
export { validateCreateRequest, offerQueryToWire, deriveState } from './schemas';
export type * from './types';
