// What the Account view shows, computed without VS Code so it can be unit tested:
// the signed-in user, the 2FA state and methods, backup codes and the add-method window.
import type { ServiceApi, TfaMethod, TfaStatus, User } from '../api/types';
import type { AccountRow } from '../core/accountRow';
import { describeTfaError } from './tfaErrors';
import * as l10n from '@vscode/l10n';

export interface AccountSnapshot {
  user?: User;
  status?: TfaStatus;
  /** The "SSH Keys" node (built by sshKeyRows.ts, loaded with the view rather than at activation). */
  sshKeyNode?: AccountRow;
  /** One sentence per part that failed to load (what happened and what to do). */
  errors: string[];
}

/** The user record comes from `o.user` when given (the one read of the account's money every view shows). */
export async function loadAccount(api: ServiceApi, o: { signal?: AbortSignal; user?: () => Promise<User> } = {}): Promise<AccountSnapshot> {
  const [u, s] = await Promise.allSettled([o.user ? o.user() : api.currentUser(o), api.tfaStatus(o)]);
  const errors: string[] = [];
  if (u.status === 'rejected') errors.push(l10n.t('Could not load your account: {0}', describeTfaError(u.reason).message));
  if (s.status === 'rejected') errors.push(l10n.t('Could not load the 2FA status: {0}', describeTfaError(s.reason).message));
  return { user: u.status === 'fulfilled' ? u.value : undefined, status: s.status === 'fulfilled' ? s.value : undefined, errors };
}

export function tfaState(user: User | undefined, status: TfaStatus | undefined): 'enabled' | 'disabled' | 'legacy' | 'unknown' {
  const s = user?.tfa_status;
  if (s === 'enabled' || s === 'disabled' || s === 'legacy') return s;
  if (status) return status.tfa_enabled ? 'enabled' : 'disabled';
  return 'unknown';
}

export function methodRow(m: TfaMethod, nowMs: number, fmt: (ms: number) => string): AccountRow {
  const kind = m.method === 'totp' ? l10n.t('Authenticator app') : 'SMS';
  const locked = !!m.locked_until && m.locked_until * 1000 > nowMs;
  const parts = [m.method === 'sms' && m.phone_number ? `${kind} ${m.phone_number}` : kind];
  if (m.is_primary) parts.push('primary');
  if (m.fail_count) parts.push(`${m.fail_count} failed`);
  if (locked) parts.push(l10n.t('locked until {0}', fmt(m.locked_until! * 1000)));
  return {
    id: `method:${m.id}`,
    label: m.label || kind,
    description: parts.join(' · '),
    tooltip: locked
      ? l10n.t(
          'Locked after too many wrong codes until {0}. Verify with another method, an e-mail code or a backup code meanwhile.',
          fmt(m.locked_until! * 1000),
        )
      : undefined,
    icon: locked ? 'lock' : m.method === 'totp' ? 'key' : 'device-mobile',
    contextValue: `tfaMethod${m.is_primary ? 'Primary' : ''}`,
    method: m,
  };
}

export function accountRows(
  snap: AccountSnapshot,
  o: { nowMs: number; authorizedUntil?: number; session: boolean; fmt: (ms: number) => string; creditText?: string },
): AccountRow[] {
  const rows: AccountRow[] = [];
  const u = snap.user;
  if (u) {
    rows.push({
      id: 'user',
      label: u.email || `User ${u.id}`,
      // The credit as every money view shows it (the caller formats the one read), else as read here.
      description: [u.full_name, o.creditText ?? (typeof u.credit === 'number' ? `$${u.credit.toFixed(2)} credit` : undefined)].filter(Boolean).join(' · '),
      icon: 'account',
    });
  }
  const state = tfaState(u, snap.status);
  const stateText = { enabled: () => l10n.t('on'), disabled: () => l10n.t('off'), legacy: () => l10n.t('on (legacy)'), unknown: () => l10n.t('unknown') }[
    state
  ]();
  rows.push({
    id: 'tfa',
    label: l10n.t('Two-factor authentication: {0}', stateText),
    description: o.session ? l10n.t('2FA session in use') : undefined,
    tooltip:
      state === 'legacy'
        ? l10n.t('Your account uses legacy 2FA. Regenerate backup codes to move it to the current system.')
        : state === 'disabled'
          ? l10n.t("Add an authenticator app (the shield in this view's title bar) or SMS (under its …) to turn 2FA on.")
          : undefined,
    icon: state === 'disabled' ? 'unlock' : 'shield',
    contextValue: `tfaState-${state}`,
  });
  const st = snap.status;
  if (st) {
    // No method yet: the 2FA row says how to add one; the title bar's shield adds it (no row that is a button).
    if (st.methods.length) {
      rows.push({ id: 'methods', label: l10n.t('Methods'), icon: 'list-unordered', children: st.methods.map((m) => methodRow(m, o.nowMs, o.fmt)) });
    }
    if (st.tfa_enabled || st.methods.length) {
      rows.push({
        id: 'backup',
        label: l10n.t('Backup codes: {0} remaining', st.backup_codes_remaining),
        icon: st.backup_codes_remaining <= 2 ? 'warning' : 'shield',
        contextValue: 'tfaBackupCodes',
      });
    }
    const until = st.new_method_authorized ? o.authorizedUntil : undefined;
    rows.push({
      id: 'authorized',
      label: st.new_method_authorized
        ? l10n.t('Adding a method: authorized{0}', until ? ` until ${o.fmt(until)}` : '')
        : l10n.t('Adding a method: needs authorization'),
      tooltip: l10n.t('Adding a method needs a verification that stays valid for 30 minutes. The Add commands ask for it when needed.'),
      icon: st.new_method_authorized ? 'pass' : 'circle-outline',
    });
  }
  if (snap.sshKeyNode) rows.push(snap.sshKeyNode);
  for (const [i, e] of snap.errors.entries()) rows.push({ id: `error:${i}`, label: e, tooltip: e, icon: 'warning' });
  return rows;
}
