// The Account view's SSH Keys node with the keys whose private half is on this machine marked.
// Loaded with the view (import()), not at activation: the activation bundle has a size budget.
import type { ServiceApi } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import type { AccountRow } from '../../core/accountRow';
import { loadSshKeyNode } from '../sshKeyRows';
import { formatLocal } from '../tfaErrors';
import { sshHome } from '../../ssh/vscode/sshHost';
import { PICKED_SSH_KEY_STATE_KEY } from '../../core/stateKeys';
import { findLocalKeys } from '../../ssh/keys';

export async function sshKeysNode(
  services: Pick<Services, 'connection' | 'globalState' | 'onDidChangeConnection' | 'settings' | 'track'>,
  api: ServiceApi,
): Promise<{ node?: AccountRow; error?: string }> {
  const preferred = [services.globalState.get<string>(PICKED_SSH_KEY_STATE_KEY), services.settings().ssh.identityFile];
  const local = async () => (await findLocalKeys(sshHome(services), preferred)).map((k) => k.fingerprint);
  return loadSshKeyNode(api, local, formatLocal);
}
