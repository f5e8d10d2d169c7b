// Two-factor authentication: /api/v0/tfa/ (status, sign-in, codes by SMS, email or an
// authenticator app, adding and removing methods, backup codes), the deprecated paths included.
// Every secret an answer carries (session key, TOTP secret, backup codes) is masked from then on.
import type { CallOptions, ConfirmNewMethodRequest, ConfirmNewMethodResult, ServiceApi, TfaSendResult, TfaSmsRequest } from './types';
import type { Pipeline } from './pipeline';

const T = '/api/v0/tfa/';

type TfaCalls = Pick<
  ServiceApi,
  | 'tfaStatus'
  | 'tfaLogin'
  | 'tfaRemove'
  | 'tfaSendEmail'
  | 'tfaSendSms'
  | 'tfaResendSms'
  | 'tfaTotpSetup'
  | 'tfaAuthorizeNewMethod'
  | 'tfaAuthorizeNewMethodConfirm'
  | 'tfaConfirmNew'
  | 'tfaUpdate'
  | 'tfaRegenBackupCodes'
  | 'tfaTestDeprecated'
  | 'tfaTestSubmitDeprecated'
  | 'tfaResendDeprecated'
>;

/** The SMS send/resend endpoints (current and deprecated paths) share body and answer. */
async function sendCode(p: Pipeline, name: string, path: string, req: TfaSmsRequest, o: CallOptions | undefined): Promise<TfaSendResult> {
  await p.validate(name, (s) => s.tfaSmsRequestSchema, req);
  const r = await p.send({ method: 'POST', path, body: req, schema: (s) => s.tfaSendResultSchema }, o);
  p.secrets.add(r.secret);
  return r;
}

/** confirm-new and its deprecated twin test-submit. */
async function confirmNew(p: Pipeline, name: string, path: string, req: ConfirmNewMethodRequest, o: CallOptions | undefined): Promise<ConfirmNewMethodResult> {
  await p.validate(name, (s) => s.confirmNewRequestSchema, req);
  const r = await p.send({ method: 'POST', path, body: req, schema: (s) => s.confirmNewResultSchema }, o);
  p.secrets.add(...(r.backup_codes ?? []));
  return r;
}

export function tfaApi(p: Pipeline): TfaCalls {
  const { send, validate, secrets } = p;
  return {
    async tfaStatus(o) {
      return send({ method: 'GET', path: `${T}status/`, schema: (s) => s.tfaStatusSchema }, o);
    },
    async tfaLogin(req, o) {
      await validate('tfaLogin', (s) => s.tfaLoginRequestSchema, req);
      const r = await send({ method: 'POST', path: T, body: req, schema: (s) => s.tfaLoginResultSchema }, o);
      secrets.add(r.session_key);
      return r;
    },
    async tfaRemove(req, o) {
      await validate('tfaRemove', (s) => s.tfaRemoveRequestSchema, req);
      return send({ method: 'DELETE', path: T, body: req, schema: (s) => s.tfaRemoveResultSchema }, o);
    },
    async tfaSendEmail(req, o) {
      await validate('tfaSendEmail', (s) => s.tfaEmailRequestSchema, req ?? {});
      const r = await send({ method: 'POST', path: `${T}email/`, body: req ?? {}, schema: (s) => s.tfaSendResultSchema }, o);
      secrets.add(r.secret);
      return r;
    },
    // Arrow members below delegate to async helpers, so validation errors also arrive as rejections.
    tfaSendSms: (req, o) => sendCode(p, 'tfaSendSms', `${T}sms/`, req, o),
    tfaResendSms: (req, o) => sendCode(p, 'tfaResendSms', `${T}sms/resend/`, req, o),
    async tfaTotpSetup(o) {
      const r = await send({ method: 'POST', path: `${T}totp-setup/`, schema: (s) => s.totpSetupSchema }, o);
      secrets.add(r.secret, r.provisioning_uri);
      return r;
    },
    async tfaAuthorizeNewMethod(req, o) {
      await validate('tfaAuthorizeNewMethod', (s) => s.authorizeNewMethodRequestSchema, req);
      const r = await send({ method: 'POST', path: `${T}authorize-new-method/`, body: req, schema: (s) => s.authorizeNewMethodResultSchema }, o);
      secrets.add(r.secret);
      return r;
    },
    async tfaAuthorizeNewMethodConfirm(req, o) {
      await validate('tfaAuthorizeNewMethodConfirm', (s) => s.authorizeConfirmRequestSchema, req);
      return send({ method: 'PUT', path: `${T}authorize-new-method/`, body: req, schema: (s) => s.simpleResultSchema }, o);
    },
    tfaConfirmNew: (req, o) => confirmNew(p, 'tfaConfirmNew', `${T}confirm-new/`, req, o),
    async tfaUpdate(req, o) {
      await validate('tfaUpdate', (s) => s.tfaUpdateRequestSchema, req);
      return send({ method: 'PUT', path: `${T}update/`, body: req, schema: (s) => s.tfaUpdateResultSchema }, o);
    },
    async tfaRegenBackupCodes(req, o) {
      await validate('tfaRegenBackupCodes', (s) => s.tfaVerificationSchema, req);
      const r = await send({ method: 'PUT', path: `${T}regen-backup-codes/`, body: req, schema: (s) => s.regenBackupCodesSchema }, o);
      secrets.add(...r.backup_codes);
      return r;
    },
    tfaTestDeprecated: (req, o) => sendCode(p, 'tfaTestDeprecated', `${T}test/`, req, o),
    tfaTestSubmitDeprecated: (req, o) => confirmNew(p, 'tfaTestSubmitDeprecated', `${T}test-submit/`, req, o),
    tfaResendDeprecated: (req, o) => sendCode(p, 'tfaResendDeprecated', `${T}resend/`, req, o),
  };
}
