// The schemas the client sends and reads with, as one module: the import() target of the
// pipeline (pipeline.ts), so they and zod are their own bundle (dist/schemas.js), loaded with the
// first request. Each resource's schemas live in their own file: instanceSchemas.ts,
// offerSchemas.ts, sshKeySchemas.ts, accountSchemas.ts (user and 2FA), createRequestSchema.ts,
// opsSchemas.ts (logs, server templates); schemaBasics.ts holds the tolerant building blocks.
// zod/mini schemas: responses parsed tolerantly into the shapes of types.ts, requests validated
// strictly (every problem at once, each with its field path) before sending.

/** For the client, which loads this module (and zod) on its first request. */
export { safeParse } from 'zod/mini';
export { simpleResultSchema, stripNulls, validateWith } from './schemaBasics';
/** The billing calls' schemas (billingApi.ts). */
export * from './billingSchemas';
export { createResultSchema, instanceListSchema, instancePageSchema, showInstanceSchema } from './instanceSchemas';
export { validateCreateRequest } from './createRequestSchema';
export { offerListSchema, offerQueryToWire, validateOfferQuery } from './offerSchemas';
export { accountSshKeyListSchema, accountSshKeyResultSchema, instanceSshKeyListSchema, sshKeyRequestSchema } from './sshKeySchemas';
export {
  userSchema,
  tfaLoginResultSchema,
  tfaStatusSchema,
  tfaSendResultSchema,
  totpSetupSchema,
  authorizeNewMethodResultSchema,
  confirmNewResultSchema,
  tfaUpdateResultSchema,
  tfaRemoveResultSchema,
  regenBackupCodesSchema,
  tfaVerificationSchema,
  tfaLoginRequestSchema,
  tfaRemoveRequestSchema,
  tfaEmailRequestSchema,
  tfaSmsRequestSchema,
  authorizeNewMethodRequestSchema,
  authorizeConfirmRequestSchema,
  confirmNewRequestSchema,
  tfaUpdateRequestSchema,
} from './accountSchemas';
export { logRequestResultSchema, templateListSchema } from './opsSchemas';
export { spendRateSchema } from './spendRateSchema';
export { overlayListSchema } from './overlaySchema';
