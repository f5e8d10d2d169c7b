// The Account view's "SSH Keys" node, computed without VS Code. Loaded with the view (import()),
// not at activation: the activation bundle has a size budget.
import { parsePublicKeyLine, publicKeyFingerprint } from '../api/sshKeyFormat';
import type { AccountSshKey, ServiceApi } from '../api/types';
import type { AccountRow } from '../core/accountRow';
import { describeTfaError } from './tfaErrors';
import * as l10n from '@vscode/l10n';

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
      description: [d?.type, d?.fingerprint, added, isHere ? l10n.t('private key on this machine') : undefined].filter(Boolean).join(' · '),
      tooltip: d
        ? `${d.type} ${d.fingerprint}${d.comment ? ` (${d.comment})` : ''}${added ? `, ${added}` : ''}. ${isHere ? l10n.t('Its private key is on this machine: SSH logins from here use it.') : l10n.t('Its private key is not on this machine (or not where GPU Rental looks).')}`
        : l10n.t('The service holds a key GPU Rental cannot read.'),
      icon: isHere ? 'pass-filled' : 'key',
      contextValue: isHere ? 'sshKeyLocal' : 'sshKey',
      sshKey: k,
    };
  });
  const anyHere = children.some((c) => c.contextValue === 'sshKeyLocal');
  if (!children.length) {
    // No key: the node itself says why it matters, and its inline + (Add SSH Key…) is the way (no row that is a button).
    return {
      id: 'sshKeys',
      label: l10n.t('SSH Keys'),
      description: l10n.t('none: add one with +'),
      tooltip: l10n.t(
        'No public key on your account: instances refuse every SSH login ("Permission denied (publickey)"). Add SSH Key… (the + on this row) registers this machine\'s key.',
      ),
      icon: 'key',
      contextValue: 'sshKeys.none',
    };
  }
  return {
    id: 'sshKeys',
    label: l10n.t('SSH Keys'),
    description: l10n.t('{0} on your account{1}', keys.length, anyHere ? '' : ' · none from this machine'),
    icon: 'key',
    contextValue: 'sshKeys',
    children,
  };
}

/** The node for the account's keys, or the sentence that says why they could not be loaded. */
export async function loadSshKeyNode(
  api: Pick<ServiceApi, 'listSshKeys'>,
  localFingerprints: () => Promise<readonly string[]>,
  fmtDate: (ms: number) => string,
): Promise<{ node?: AccountRow; error?: string }> {
  const [k, l] = await Promise.allSettled([api.listSshKeys(), localFingerprints()]);
  if (k.status === 'rejected') return { error: l10n.t('Could not load your SSH keys: {0}', describeTfaError(k.reason).message) };
  return { node: sshKeyRows(k.value, l.status === 'fulfilled' ? l.value : [], fmtDate) };
}
