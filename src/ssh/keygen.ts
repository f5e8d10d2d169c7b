// Key pair generation without ssh-keygen (e.g. Windows without OpenSSH): the ssh2 library
// writes the OpenSSH private key format. Its own bundle, loaded only in that case.
import { utils } from 'ssh2';
import * as l10n from '@vscode/l10n';

/**
 * ssh2's ed25519 generator drops the leading zero bytes of the public key (mscdex/ssh2#1513): about
 * one pair in 256 holds a 31-byte key that OpenSSH refuses to load ("error in libcrypto"). A pair is
 * kept only when both halves parse and the public key is whole; otherwise it is made again.
 */
const ATTEMPTS = 16;
const ED25519_BLOB_BYTES = 4 + 'ssh-ed25519'.length + 4 + 32;

export function generateEd25519(comment: string, generate = utils.generateKeyPairSync): { private: string; public: string } {
  for (let i = 0; i < ATTEMPTS; i++) {
    const pair = generate('ed25519', { comment });
    if (wholePair(pair)) return { private: pair.private, public: pair.public };
  }
  throw new Error(l10n.t('the SSH library made no usable ed25519 key pair in {0} attempts', ATTEMPTS));
}

function wholePair(pair: { private: string; public: string }): boolean {
  const pub = utils.parseKey(pair.public);
  const priv = utils.parseKey(pair.private);
  if (pub instanceof Error || priv instanceof Error || Array.isArray(pub) || Array.isArray(priv)) return false;
  const blob = pub.getPublicSSH();
  return blob.length === ED25519_BLOB_BYTES && blob.equals(priv.getPublicSSH());
}
