// What the Account view shows, computed without VS Code so it can be unit tested:
// the signed-in user, the 2FA state and methods, backup codes and the add-method window.
import type { AccountSshKey, ServiceApi, TfaMethod, TfaStatus, User } from '../api/types';
import { parsePublicKeyLine, publicKeyFingerprint } from '../api/sshKeyFormat';
import { describeTfaError } from './tfaErrors';

export interface AccountSnapshot {
  user?: User;
  status?: TfaStatus;
  /** The account's SSH public keys. */
  sshKeys?: AccountSshKey[];
  /** SHA256 fingerprints of the keys whose private half is on this machine. */
  localFingerprints?: readonly string[];
  /** One sentence per part that failed to load (what happened and what to do). */
  errors: string[];
}

export async function loadAccount(
  api: ServiceApi,
  o: { signal?: AbortSignal; localFingerprints?: () => Promise<readonly string[]> } = {},
): Promise<AccountSnapshot> {
  const call = { ...(o.signal ? { signal: o.signal } : {}) };
  const [u, s, k, l] = await Promise.allSettled([api.currentUser(call), api.tfaStatus(call), api.listSshKeys(call), o.localFingerprints?.() ?? Promise.resolve([])]);
  const errors: string[] = [];
  if (u.status === 'rejected') errors.push(`Could not load your account: ${describeTfaError(u.reason).message}`);
  if (s.status === 'rejected') errors.push(`Could not load the 2FA status: ${describeTfaError(s.reason).message}`);
  if (k.status === 'rejected') errors.push(`Could not load your SSH keys: ${describeTfaError(k.reason).message}`);
  return {
    user: u.status === 'fulfilled' ? u.value : undefined,
    status: s.status === 'fulfilled' ? s.value : undefined,
    ...(k.status === 'fulfilled' ? { sshKeys: k.value } : {}),
    localFingerprints: l.status === 'fulfilled' ? l.value : [],
    errors,
  };
}

/** The "SSH Keys" node: each account key with type, fingerprint, comment, date, and whether its private half is here. */
export function sshKeyRows(keys: readonly AccountSshKey[], local: readonly string[], fmtDate: (ms: number) => string): AccountRow {
  const here = new Set(local);
  const children: AccountRow[] = keys.map((k) => {
    const parsed = parsePublicKeyLine(k.public_key);
    const d = parsed && { type: parsed.type, comment: parsed.comment, fingerprint: publicKeyFingerprint(parsed) };
    const isHere = !!d && here.has(d.fingerprint);
    const added = typeof k.created_at === 'number' ? `added ${fmtDate(k.created_at * 1000)}` : undefined;
    return {
      id: `sshKey:${k.id}`,
      label: d?.comment || d?.type || `Key ${k.id}`,
      description: [d?.type, d?.fingerprint, added, isHere ? 'private key on this machine' : undefined].filter(Boolean).join(' · '),
      tooltip: d
        ? `${d.type} ${d.fingerprint}${d.comment ? ` (${d.comment})` : ''}${added ? `, ${added}` : ''}. ${isHere ? 'Its private key is on this machine: SSH logins from here use it.' : 'Its private key is not on this machine (or not where GPU Rental looks).'}`
        : 'The service holds a key GPU Rental cannot read.',
      icon: isHere ? 'pass-filled' : 'key',
      contextValue: isHere ? 'sshKeyLocal' : 'sshKey',
      sshKey: k,
    };
  });
  if (!children.length) {
    children.push({
      id: 'sshKeys:add',
      label: 'Add an SSH key…',
      tooltip: 'Without a public key on your account, instances refuse every SSH login ("Permission denied (publickey)").',
      icon: 'add',
      command: 'gpuRental.addSshKey',
    });
  }
  const anyHere = children.some((c) => c.contextValue === 'sshKeyLocal');
  return {
    id: 'sshKeys',
    label: 'SSH Keys',
    description: keys.length ? `${keys.length} on your account${anyHere ? '' : ' · none from this machine'}` : 'none',
    icon: 'key',
    contextValue: 'sshKeys',
    children,
  };
}

export interface AccountRow {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon: string;
  /** Menus match on this ('tfaMethod', 'tfaMethodPrimary', 'tfaMethodLocked' …). */
  contextValue?: string;
  method?: TfaMethod;
  /** An SSH key row's account key (for Copy Public Key and Remove). */
  sshKey?: AccountSshKey;
  children?: AccountRow[];
  /** A command to run on click (e.g. add a method from the empty state). */
  command?: string;
}

export function tfaState(user: User | undefined, status: TfaStatus | undefined): 'enabled' | 'disabled' | 'legacy' | 'unknown' {
  const s = user?.tfa_status;
  if (s === 'enabled' || s === 'disabled' || s === 'legacy') return s;
  if (status) return status.tfa_enabled ? 'enabled' : 'disabled';
  return 'unknown';
}

export function methodRow(m: TfaMethod, nowMs: number, fmt: (ms: number) => string): AccountRow {
  const kind = m.method === 'totp' ? 'Authenticator app' : 'SMS';
  const locked = !!m.locked_until && m.locked_until * 1000 > nowMs;
  const parts = [m.method === 'sms' && m.phone_number ? `${kind} ${m.phone_number}` : kind];
  if (m.is_primary) parts.push('primary');
  if (m.fail_count) parts.push(`${m.fail_count} failed`);
  if (locked) parts.push(`locked until ${fmt(m.locked_until! * 1000)}`);
  return {
    id: `method:${m.id}`,
    label: m.label || kind,
    description: parts.join(' · '),
    tooltip: locked ? `Locked after too many wrong codes until ${fmt(m.locked_until! * 1000)}. Verify with another method, an e-mail code or a backup code meanwhile.` : undefined,
    icon: locked ? 'lock' : m.method === 'totp' ? 'key' : 'device-mobile',
    contextValue: `tfaMethod${m.is_primary ? 'Primary' : ''}`,
    method: m,
  };
}

export function accountRows(
  snap: AccountSnapshot,
  o: { nowMs: number; authorizedUntil?: number; session: boolean; fmt: (ms: number) => string },
): AccountRow[] {
  const rows: AccountRow[] = [];
  const u = snap.user;
  if (u) {
    rows.push({
      id: 'user',
      label: u.email || `User ${u.id}`,
      description: [u.full_name, typeof u.credit === 'number' ? `$${u.credit.toFixed(2)} credit` : undefined].filter(Boolean).join(' · '),
      icon: 'account',
    });
  }
  const state = tfaState(u, snap.status);
  const stateText = { enabled: 'on', disabled: 'off', legacy: 'on (legacy)', unknown: 'unknown' }[state];
  rows.push({
    id: 'tfa',
    label: `Two-factor authentication: ${stateText}`,
    description: o.session ? '2FA session in use' : undefined,
    tooltip:
      state === 'legacy'
        ? 'Your account uses legacy 2FA. Regenerate backup codes to move it to the current system.'
        : state === 'disabled'
          ? 'Add an authenticator app or SMS to turn 2FA on.'
          : undefined,
    icon: state === 'disabled' ? 'unlock' : 'shield',
    contextValue: `tfaState-${state}`,
  });
  const st = snap.status;
  if (st) {
    if (st.methods.length) {
      rows.push({ id: 'methods', label: 'Methods', icon: 'list-unordered', children: st.methods.map((m) => methodRow(m, o.nowMs, o.fmt)) });
    } else if (state !== 'legacy') {
      rows.push({ id: 'add', label: 'Add an authenticator app…', icon: 'add', command: 'gpuRental.tfa.addTotp' });
    }
    if (st.tfa_enabled || st.methods.length) {
      rows.push({ id: 'backup', label: `Backup codes: ${st.backup_codes_remaining} remaining`, icon: st.backup_codes_remaining <= 2 ? 'warning' : 'shield', contextValue: 'tfaBackupCodes' });
    }
    const until = st.new_method_authorized ? o.authorizedUntil : undefined;
    rows.push({
      id: 'authorized',
      label: st.new_method_authorized ? `Adding a method: authorized${until ? ` until ${o.fmt(until)}` : ''}` : 'Adding a method: needs authorization',
      tooltip: 'Adding a method needs a verification that stays valid for 30 minutes. The Add commands ask for it when needed.',
      icon: st.new_method_authorized ? 'pass' : 'circle-outline',
    });
  }
  if (snap.sshKeys) rows.push(sshKeyRows(snap.sshKeys, snap.localFingerprints ?? [], o.fmt));
  for (const [i, e] of snap.errors.entries()) rows.push({ id: `error:${i}`, label: e, tooltip: e, icon: 'warning' });
  return rows;
}
