// Every 2FA flow of the spec as plain TypeScript driven through injected ports (api,
// prompts, clock, state: tfaPorts.ts), so each one runs against the simulator in unit tests and
// against VS Code input boxes and webviews in the extension.
//
// The shape of each flow: choose how to verify -> start a challenge (send a code, or
// nothing for TOTP/backup codes) -> enter a code -> complete. A failure re-enters the
// loop where it stopped: a wrong code asks for the code again with the same challenge,
// an expired challenge sends a new one, a flaky service repeats the same call. No
// step is silently skipped and nothing is left half done.
import type { ServiceApi, TfaLoginResult, TfaMethod, TfaStatus, TfaVerification } from '../api/types';
import { errorCode } from '../core/describeError';
import { backupCodesRemain, describeTfaError, formatLocal, methodName, noBackupCodesWithoutTfa, type TfaErrorInfo } from './tfaErrors';
import { inboxHint, newestCode } from '../demo/demoInbox';
import { normalizeBackupCode, normalizeOtp, normalizePhone, validateBackupCode, validateLabel, validateOtp, validatePhone } from './tfaValidation';
import { AUTHORIZED_UNTIL_KEY } from '../core/stateKeys';
import {
  Stop,
  cancelled,
  codePrompt,
  failed,
  toVerification,
  type Clock,
  type FlowResult,
  type PickVerifierRequest,
  type TfaFlowDeps,
  type TfaPrompts,
  type Verifier,
} from './tfaPorts';
import * as l10n from '@vscode/l10n';

export const AUTHORIZATION_WINDOW_MS = 30 * 60 * 1000;
export { AUTHORIZED_UNTIL_KEY };

export class TfaFlows {
  private readonly clock: Clock;
  private memoryWindow: number | undefined;

  constructor(private readonly deps: TfaFlowDeps) {
    this.clock = deps.clock ?? { now: () => Date.now() };
  }

  private get api(): ServiceApi {
    return this.deps.api;
  }
  private get prompts(): TfaPrompts {
    return this.deps.prompts;
  }

  private fmt(ms: number): string {
    return (this.deps.formatTime ?? formatLocal)(ms);
  }

  // ---- authorization window -------------------------------------------------------

  /** End of the add-method window as remembered from the local clock, if still open. */
  authorizedUntil(): number | undefined {
    const t = this.deps.state?.get<number>(AUTHORIZED_UNTIL_KEY) ?? this.memoryWindow;
    return t !== undefined && t > this.clock.now() ? t : undefined;
  }

  private async rememberWindow(t: number | undefined): Promise<void> {
    this.memoryWindow = t;
    await this.deps.state?.update(AUTHORIZED_UNTIL_KEY, t);
  }

  /**
   * Step 1 + step 2 of authorize-new-method. Skipped when the service says a method may
   * be added now; when the window has lapsed the user goes through it again.
   */
  async authorize(opts: { force?: boolean; status?: TfaStatus } = {}): Promise<FlowResult<number>> {
    try {
      return { ok: true, value: await this.ensureAuthorized(opts.status ?? (await this.call(() => this.api.tfaStatus())), !!opts.force) };
    } catch (e) {
      return this.stopped(e);
    }
  }

  private async ensureAuthorized(status: TfaStatus, force: boolean): Promise<number> {
    const local = this.authorizedUntil();
    if (!force && status.new_method_authorized) {
      if (local) return local;
      // Authorized by another client (or before a restart): the end is unknown locally,
      // so show the longest it can be.
      return this.clock.now() + AUTHORIZATION_WINDOW_MS;
    }
    await this.rememberWindow(undefined);
    const title = l10n.t('Authorize adding a 2FA method');
    let verifier: Verifier | undefined;
    if (status.methods.length === 0) {
      // The service forces e-mail for a user with no methods.
      verifier = { kind: 'email' };
      this.prompts.info('To add your first 2FA method, confirm it is you with a code sent to your account e-mail.');
    } else {
      verifier = await this.prompts.pickVerifier({ title, methods: status.methods, email: true, backup: true });
      if (!verifier) throw new Stop(cancelled);
    }
    const v = verifier;
    if (v.kind === 'backup') {
      await this.codeLoop({
        title,
        verifier: v,
        start: async () => undefined,
        complete: (code) => this.api.tfaAuthorizeNewMethod({ backup_code: code }),
      });
    } else {
      await this.codeLoop({
        title,
        verifier: v,
        start: async () => {
          const r = await this.api.tfaAuthorizeNewMethod(
            v.kind === 'method' ? { tfa_method: v.method.method as 'sms' | 'totp', tfa_method_id: v.method.id } : { tfa_method: 'email' },
          );
          return r.secret;
        },
        complete: (code, secret) => this.api.tfaAuthorizeNewMethodConfirm({ code, secret: secret ?? '' }),
      });
    }
    const until = this.clock.now() + AUTHORIZATION_WINDOW_MS;
    await this.rememberWindow(until);
    this.deps.log?.info('tfa: add-method authorization granted');
    this.prompts.info(`Authorized: you can add a 2FA method until ${this.fmt(until)}.`);
    return until;
  }

  // ---- the code loop every verification goes through ---------------------------------

  /**
   * start() sends a challenge and returns its secret (or undefined when the code needs no
   * challenge); complete() sends the code. Errors offer their follow-up actions and the
   * loop resumes at the matching step.
   */
  private async codeLoop<T>(o: {
    title: string;
    verifier: Verifier;
    start: () => Promise<string | undefined>;
    complete: (code: string, secret: string | undefined) => Promise<T>;
  }): Promise<T> {
    const kind = o.verifier.kind === 'backup' ? 'backup' : 'otp';
    const ctx = {
      method: o.verifier.kind === 'method' ? o.verifier.method : undefined,
      via: o.verifier.kind === 'email' ? ('email' as const) : o.verifier.kind === 'backup' ? ('backup' as const) : undefined,
    };
    const sentAfter = Math.floor(this.clock.now() / 1000) - 5;
    let secret = await this.startWithRecovery(o.start, ctx);
    let code: string | undefined;
    for (;;) {
      if (code === undefined) {
        const hint = kind === 'otp' ? await this.inboxHint(o.verifier, sentAfter) : undefined;
        code = await this.prompts.code({ title: o.title, prompt: codePrompt(o.verifier), kind, ...(hint ? { hint } : {}) });
        if (code === undefined) throw new Stop(cancelled);
        const bad = kind === 'otp' ? validateOtp(code) : validateBackupCode(code);
        if (bad) {
          code = undefined;
          this.prompts.info(bad);
          continue;
        }
        code = kind === 'otp' ? normalizeOtp(code) : normalizeBackupCode(code);
      }
      try {
        return await o.complete(code, secret);
      } catch (e) {
        const info = this.describe(e, ctx);
        this.deps.log?.warn(`tfa: ${o.title} failed: ${info.code ?? 'error'}`);
        const action = await this.prompts.error(info);
        if (action === 'retry') continue; // same code, same challenge (service hiccup)
        if (action === 'tryAgain') {
          code = undefined;
          continue;
        }
        if (action === 'newCode' || action === 'resend') {
          code = undefined;
          secret = await this.startWithRecovery(o.start, ctx);
          continue;
        }
        throw new Stop(failed(info.message));
      }
    }
  }

  /** The demo inbox's newest code for this verifier (undefined outside the demo, or when it cannot be read). */
  private async inboxHint(v: Verifier, sentAfter: number): Promise<string | undefined> {
    const inbox = this.deps.inbox;
    if (!inbox) return undefined;
    const channel =
      v.kind === 'email' ? 'email' : v.kind === 'phoneOnFile' ? 'sms' : v.kind === 'method' ? (v.method.method === 'totp' ? 'app' : 'sms') : undefined;
    if (!channel) return undefined;
    try {
      const m = newestCode(await inbox.messages(), channel, channel === 'app' ? 0 : sentAfter);
      return m && inboxHint(m);
    } catch (e) {
      this.deps.log?.warn(`tfa: demo inbox: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async startWithRecovery(
    start: () => Promise<string | undefined>,
    ctx: { method?: TfaMethod; via?: 'email' | 'backup' },
  ): Promise<string | undefined> {
    for (;;) {
      try {
        return await start();
      } catch (e) {
        const info = this.describe(e, ctx);
        const action = await this.prompts.error(info);
        if (action === 'retry' || action === 'newCode') continue;
        throw new Stop(failed(info.message));
      }
    }
  }

  private describe(e: unknown, ctx: { method?: TfaMethod; via?: 'email' | 'backup' }): TfaErrorInfo {
    return describeTfaError(e, { ...ctx, now: this.clock.now(), formatTime: (ms) => this.fmt(ms) });
  }

  /** A call with no code: errors offering retry repeat it. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await fn();
      } catch (e) {
        const info = this.describe(e, {});
        const action = await this.prompts.error(info);
        if (action === 'retry') continue;
        throw new Stop(failed(info.message));
      }
    }
  }

  /** Stops a flow on a precondition, telling the user why. */
  private async fail(message: string): Promise<{ ok: false; reason: 'failed'; message: string }> {
    await this.prompts.error({ message, actions: [] });
    return failed(message);
  }

  private stopped(e: unknown): { ok: false; reason: 'cancelled' | 'failed'; message?: string } {
    if (e instanceof Stop) return e.result;
    throw e;
  }

  /** Verification for regenerate / remove / sign-in: picks how, sends the challenge, completes. */
  private async verified<T>(
    title: string,
    pick: Omit<PickVerifierRequest, 'title'>,
    complete: (v: TfaVerification, verifier: Verifier) => Promise<T>,
    preset?: Verifier,
  ): Promise<T> {
    const verifier = preset ?? (await this.prompts.pickVerifier({ title, ...pick }));
    if (!verifier) throw new Stop(cancelled);
    const start = async (): Promise<string | undefined> => {
      switch (verifier.kind) {
        case 'email':
          return (await this.api.tfaSendEmail({})).secret;
        case 'phoneOnFile':
          return (await this.sendSms({})).secret;
        case 'method':
          return verifier.method.method === 'sms' ? (await this.sendSms({ tfa_method_id: verifier.method.id })).secret : undefined;
        default:
          return undefined;
      }
    };
    return this.codeLoop({
      title,
      verifier,
      start,
      complete: (code, secret) => complete(toVerification(verifier, code, secret), verifier),
    });
  }

  /** POST tfa/sms, and on tfa_challenge_exists the resend endpoint (after the user agrees). */
  private async sendSms(req: { phone_number?: string; tfa_method_id?: number }): Promise<{ secret: string }> {
    try {
      return await this.api.tfaSendSms(req);
    } catch (e) {
      if (errorCode(e) !== 'tfa_challenge_exists') throw e;
      const action = await this.prompts.error(describeTfaError(e));
      if (action !== 'resend' && action !== 'retry') throw new Stop(failed(describeTfaError(e).message));
      return this.api.tfaResendSms(req);
    }
  }

  // ---- flows ----------------------------------------------------------------------

  async status(): Promise<TfaStatus> {
    return this.api.tfaStatus();
  }

  /** Adds an authenticator app: authorize, totp-setup, webview, confirm-new, backup codes. */
  async addTotp(): Promise<FlowResult<{ backupCodes: boolean }>> {
    try {
      const status = await this.call(() => this.api.tfaStatus());
      await this.ensureAuthorized(status, false);
      const setup = await this.call(() => this.api.tfaTotpSetup());
      let codes: string[] | undefined;
      let done = false;
      const submit = async (code: string, label?: string): Promise<string | undefined> => {
        const bad = validateOtp(code) ?? (label ? validateLabel(label) : undefined);
        if (bad) return bad;
        const req = { tfa_method: 'totp' as const, code: normalizeOtp(code), secret: setup.secret, ...(label?.trim() ? { label: label.trim() } : {}) };
        try {
          const r = await this.confirmWithReauthorization(() => this.api.tfaConfirmNew(req));
          codes = r.backup_codes;
          done = true;
          return undefined;
        } catch (e) {
          if (e instanceof Stop) return e.result.message ?? l10n.t('Authorization was cancelled. Authorize, then enter the code again.');
          return describeTfaError(e, { now: this.clock.now(), formatTime: (ms) => this.fmt(ms) }).message;
        }
      };
      const shown = await this.prompts.totpSetup(setup, submit);
      // Drop the secret: the service keeps the only copy it needs from here on.
      setup.secret = '';
      setup.provisioning_uri = '';
      if (!shown || !done) return cancelled;
      this.deps.log?.info('tfa: authenticator app added');
      this.deps.changed?.();
      this.prompts.info('Authenticator app added. 2FA is on for your account.');
      if (codes?.length) await this.prompts.backupCodes(codes, l10n.t('Your 2FA backup codes'));
      return { ok: true, value: { backupCodes: !!codes?.length } };
    } catch (e) {
      return this.stopped(e);
    }
  }

  /** authorization_required mid-flow (window lapsed): authorize again, then repeat once. */
  private async confirmWithReauthorization<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (errorCode(e) !== 'authorization_required') throw e;
      await this.rememberWindow(undefined);
      this.prompts.info('The 30-minute authorization to add a method has lapsed. Authorize once more to finish.');
      const status = await this.api.tfaStatus();
      await this.ensureAuthorized(status, true);
      return fn();
    }
  }

  /** Adds an SMS method: authorize, phone number, send (or resend), code, confirm-new. */
  async addSms(): Promise<FlowResult<{ backupCodes: boolean }>> {
    try {
      const status = await this.call(() => this.api.tfaStatus());
      await this.ensureAuthorized(status, false);
      let phone: string | undefined;
      for (;;) {
        phone = await this.prompts.phone(l10n.t('Add SMS: phone number'));
        if (phone === undefined) return cancelled;
        const bad = validatePhone(phone);
        if (!bad) break;
        this.prompts.info(bad);
      }
      const number = normalizePhone(phone);
      const label = await this.prompts.label(l10n.t('Add SMS: label (optional, up to 30 characters)'));
      if (label === undefined) return cancelled;
      const bad = validateLabel(label);
      if (bad) return this.fail(bad);
      const method: TfaMethod = { id: 0, method: 'sms', phone_number: number, label };
      const r = await this.codeLoop({
        title: l10n.t('Add SMS'),
        verifier: { kind: 'method', method },
        start: async () => (await this.sendSms({ phone_number: number })).secret,
        complete: (code, secret) =>
          this.confirmWithReauthorization(() =>
            this.api.tfaConfirmNew({ tfa_method: 'sms', code, secret: secret ?? '', phone_number: number, ...(label.trim() ? { label: label.trim() } : {}) }),
          ),
      });
      this.deps.log?.info('tfa: SMS method added');
      this.deps.changed?.();
      this.prompts.info('SMS method added. 2FA is on for your account.');
      if (r.backup_codes?.length) await this.prompts.backupCodes(r.backup_codes, l10n.t('Your 2FA backup codes'));
      return { ok: true, value: { backupCodes: !!r.backup_codes?.length } };
    } catch (e) {
      return this.stopped(e);
    }
  }

  /** Replaces all backup codes (verified by a method, e-mail or a backup code) and shows them once. */
  async regenerateBackupCodes(preset?: Verifier): Promise<FlowResult<number>> {
    try {
      const status = await this.call(() => this.api.tfaStatus());
      const legacy = status.tfa_enabled && status.methods.length === 0;
      if (!status.tfa_enabled && status.methods.length === 0) return this.fail(noBackupCodesWithoutTfa());
      const r = await this.verified(
        l10n.t('Regenerate backup codes'),
        { methods: status.methods, email: true, backup: !legacy, phoneOnFile: legacy },
        (v) => this.api.tfaRegenBackupCodes(v),
        preset,
      );
      this.deps.log?.info('tfa: backup codes regenerated');
      this.deps.changed?.();
      await this.prompts.backupCodes(r.backup_codes, l10n.t('Your new 2FA backup codes'));
      return { ok: true, value: r.backup_codes.length };
    } catch (e) {
      return this.stopped(e);
    }
  }

  /** Removes a method, verified by its own code, an e-mail code, or a backup code (with target_id). */
  async removeMethod(target?: TfaMethod, preset?: Verifier): Promise<FlowResult<{ remaining?: number; disabled: boolean }>> {
    try {
      const status = await this.call(() => this.api.tfaStatus());
      const t = target
        ? (status.methods.find((m) => m.id === target.id) ?? target)
        : await this.prompts.pickMethod(l10n.t('Remove which 2FA method?'), status.methods);
      if (!t) return cancelled;
      const last = status.methods.length <= 1;
      const warning = last
        ? l10n.t('{0} is your last 2FA method. Removing it turns two-factor authentication off and deletes all your backup codes. Remove it?', methodName(t))
        : l10n.t('Remove {0} from your 2FA methods?', methodName(t));
      if (!(await this.prompts.confirm(warning, last ? l10n.t('Remove and Turn Off 2FA') : l10n.t('Remove')))) return cancelled;
      const r = await this.verified(
        `Remove ${methodName(t)}`,
        { methods: [t], email: true, backup: true },
        (v, verifier) => this.api.tfaRemove({ ...v, target_id: t.id, ...(verifier.kind === 'method' ? { tfa_method_id: t.id } : {}) }),
        preset,
      );
      const disabled = last || r.remaining_methods === 0;
      this.deps.log?.info(`tfa: method removed${disabled ? ', 2FA turned off' : ''}`);
      if (disabled) await this.rememberWindow(undefined);
      this.prompts.info(
        disabled
          ? 'Method removed. Two-factor authentication is now off and your backup codes were deleted.'
          : `Method removed. ${r.remaining_methods ?? 'Other'} method(s) remain.`,
      );
      return { ok: true, value: { remaining: r.remaining_methods, disabled } };
    } catch (e) {
      return this.stopped(e);
    }
  }

  async rename(target?: TfaMethod, newLabel?: string): Promise<FlowResult<string>> {
    try {
      const t = target ?? (await this.prompts.pickMethod(l10n.t('Rename which 2FA method?'), (await this.call(() => this.api.tfaStatus())).methods));
      if (!t) return cancelled;
      const label = newLabel ?? (await this.prompts.label(l10n.t('Rename {0} (up to 30 characters)', methodName(t)), t.label ?? ''));
      if (label === undefined) return cancelled;
      const bad = validateLabel(label);
      if (bad) return this.fail(bad);
      await this.call(() => this.api.tfaUpdate({ tfa_method_id: t.id, label: label.trim() }));
      this.prompts.info(`Renamed to "${label.trim()}".`);
      return { ok: true, value: label.trim() };
    } catch (e) {
      return this.stopped(e);
    }
  }

  async makePrimary(target?: TfaMethod): Promise<FlowResult> {
    try {
      const t = target ?? (await this.prompts.pickMethod(l10n.t('Make which 2FA method primary?'), (await this.call(() => this.api.tfaStatus())).methods));
      if (!t) return cancelled;
      await this.call(() => this.api.tfaUpdate({ tfa_method_id: t.id, is_primary: true }));
      this.prompts.info(`${methodName(t)} is now your primary 2FA method.`);
      return { ok: true, value: undefined };
    } catch (e) {
      return this.stopped(e);
    }
  }

  /** CLI-flow 2FA login: the returned session_key becomes the bearer token. */
  async signIn(preset?: Verifier): Promise<FlowResult<{ backupCodesRemaining?: number; legacy: boolean }>> {
    try {
      const [status, user] = await Promise.all([this.call(() => this.api.tfaStatus()), this.call(() => this.api.currentUser())]);
      const legacy = user.tfa_status === 'legacy';
      if (!status.tfa_enabled && status.methods.length === 0 && !legacy) {
        return this.fail(l10n.t('2FA is not enabled on this account, so there is no 2FA session to sign in to. Add an authenticator app or SMS method first.'));
      }
      const r: TfaLoginResult = await this.verified(
        l10n.t('Sign in with 2FA'),
        { methods: status.methods, email: true, backup: true, phoneOnFile: legacy && status.methods.length === 0 },
        (v) => this.api.tfaLogin(v),
        preset,
      );
      const key = r.session_key;
      if (!key)
        return this.fail(
          l10n.t('The service verified the code but returned no session key. Your API key stays in use; try signing in again, and report this if it repeats.'),
        );
      await this.deps.setSessionKey?.(key);
      this.deps.log?.info('tfa: signed in with 2FA, session key stored');
      const notes = [l10n.t('Signed in with 2FA: requests now use the 2FA session.')];
      if (r.backup_codes_remaining !== undefined) notes.push(backupCodesRemain(r.backup_codes_remaining));
      if (r.legacy_tfa_user) notes.push(l10n.t('Your account uses legacy 2FA: regenerate backup codes to move it to the current 2FA system.'));
      this.prompts.info(notes.join(' '));
      return { ok: true, value: { backupCodesRemaining: r.backup_codes_remaining, legacy: !!r.legacy_tfa_user } };
    } catch (e) {
      return this.stopped(e);
    }
  }

  async signOut(): Promise<void> {
    await this.deps.setSessionKey?.(undefined);
    this.deps.log?.info('tfa: 2FA session dropped');
    this.prompts.info('Signed out of the 2FA session. Requests use your API key again.');
  }
}
