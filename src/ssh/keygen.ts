// Key pair generation without ssh-keygen (e.g. Windows without OpenSSH): the ssh2 library
// writes the OpenSSH private key format. Its own bundle, loaded only in that case.
import { utils } from 'ssh2';

export function generateEd25519(comment: string): { private: string; public: string } {
  const pair = utils.generateKeyPairSync('ed25519', { comment });
  return { private: pair.private, public: pair.public };
}
