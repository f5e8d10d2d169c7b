// Answers for the 2FA prompts supplied up front, so commands can run without UI (scripts,
// integration tests: `executeCommand('gpuRental.tfa.addTotp', { code: s => totp(s, now) })`)
// and unit tests can drive every flow. Anything not scripted goes to the fallback prompts
// (the real UI), or is treated as cancelled when there is none.
import type { TfaMethod, TotpSetupResult } from '../api/types';
import type { TfaErrorAction, TfaErrorInfo } from './tfaErrors';
import type { CodeRequest, PickVerifierRequest, TfaPrompts, Verifier } from './tfaPorts';

type CodeSource = string | ((totpSecret: string | undefined, req?: CodeRequest) => string | Promise<string>);

export interface TfaScript {
  /** How to verify: 'email', 'backup', 'phoneOnFile', or a method id. */
  verify?: 'email' | 'backup' | 'phoneOnFile' | number;
  /** 6-digit code(s), used in order; a function gets the TOTP secret during TOTP setup. */
  code?: CodeSource | CodeSource[];
  /** Backup code for a 'backup' verification. */
  backupCode?: string;
  /** E.164 phone number for Add SMS. */
  phone?: string;
  /** Label for a new or renamed method ('' = none). */
  label?: string;
  /** Target method id (rename, make primary, remove). */
  method?: number;
  /** Answer to a confirmation (e.g. removing the last method). Default: not confirmed. */
  confirm?: boolean;
  /** What to do after an error; default: stop. */
  onError?: TfaErrorAction | 'stop' | ((info: TfaErrorInfo) => TfaErrorAction | undefined);
  /** Receives backup codes instead of the view (tests only). */
  onBackupCodes?: (codes: readonly string[]) => unknown;
  onInfo?: (message: string) => void;
  onConfirm?: (message: string) => void;
  onErrorShown?: (info: TfaErrorInfo) => void;
}

export function scriptedPrompts(script: TfaScript, fallback?: TfaPrompts): TfaPrompts {
  const codes: CodeSource[] = script.code === undefined ? [] : Array.isArray(script.code) ? [...script.code] : [script.code];
  const single = !Array.isArray(script.code);
  // A single scripted answer is reused a few times (a code may be needed more than once),
  // never forever: a script whose answer is refused must end, not loop.
  let singleUses = 0;
  const once = new Set<string>();
  const firstTime = (what: string): boolean => !once.has(what) && !!once.add(what);
  const nextCode = async (secret: string | undefined, req?: CodeRequest): Promise<string | undefined> => {
    if (single && ++singleUses > 5) return undefined;
    const c = single ? codes[0] : codes.shift();
    if (c === undefined) return undefined;
    return typeof c === 'function' ? c(secret, req) : c;
  };
  const hasCode = (): boolean => codes.length > 0 && (!single || singleUses < 5);
  const findMethod = (methods: TfaMethod[], id: number | undefined): TfaMethod | undefined => methods.find((m) => m.id === id);

  return {
    async pickVerifier(req: PickVerifierRequest): Promise<Verifier | undefined> {
      const v = script.verify;
      if (v === undefined) return fallback?.pickVerifier(req);
      if (v === 'email' || v === 'backup' || v === 'phoneOnFile') return { kind: v };
      const m = findMethod(req.methods, v);
      return m ? { kind: 'method', method: m } : undefined;
    },
    async pickMethod(title, methods) {
      if (script.method === undefined) return fallback?.pickMethod(title, methods);
      return findMethod(methods, script.method);
    },
    async code(req) {
      if (req.kind === 'backup' && script.backupCode !== undefined) return firstTime('backup') ? script.backupCode : undefined;
      if (hasCode()) return nextCode(undefined, req);
      return fallback?.code(req);
    },
    async phone(title) {
      if (script.phone !== undefined) return firstTime('phone') ? script.phone : undefined;
      return fallback?.phone(title);
    },
    async label(title, value) {
      if (script.label !== undefined) return script.label;
      // Scripted runs without a label mean "no label" rather than a prompt.
      return fallback ? fallback.label(title, value) : '';
    },
    async confirm(message, confirmLabel) {
      script.onConfirm?.(message);
      if (script.confirm !== undefined) return script.confirm;
      return fallback ? fallback.confirm(message, confirmLabel) : false;
    },
    async error(info) {
      script.onErrorShown?.(info);
      const h = script.onError;
      if (h === undefined) return fallback?.error(info);
      const a = typeof h === 'function' ? h(info) : h;
      return a === 'stop' || a === undefined || !info.actions.includes(a) ? undefined : a;
    },
    info(message) {
      if (script.onInfo) script.onInfo(message);
      else fallback?.info(message);
    },
    async backupCodes(list, title) {
      if (script.onBackupCodes) await script.onBackupCodes(list);
      else await fallback?.backupCodes(list, title);
    },
    async totpSetup(setup: TotpSetupResult, submit) {
      if (!hasCode()) return fallback ? fallback.totpSetup(setup, submit) : false;
      for (;;) {
        const code = await nextCode(setup.secret);
        if (code === undefined) return false;
        const err = await submit(code, script.label);
        if (err === undefined) return true;
        script.onErrorShown?.({ message: err, actions: ['tryAgain'] });
        if (single) return false;
      }
    },
  };
}
