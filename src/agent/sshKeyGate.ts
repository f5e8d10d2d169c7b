// Before an agent rents: the account must hold one of this machine's SSH keys, or the new machine
// bills while refusing every SSH login ("Permission denied (publickey)"). A click asks the one key
// question (ssh/vscode/sshKeyCheck.ts); an agent cannot, so its rent is refused, nothing sent, with
// how to add a key. Both front ends run the same check (ssh/keys.ts accountKeyHere) over the API:
// VS Code's ports name this window's SSH home and the key picked before, the MCP server's the home
// it writes SSH entries for.
import { accountKeyHere } from '../ssh/keys';
import { describeError } from '../core/describeError';
import type { AgentPorts } from './toolTypes';
import { ToolError } from './toolTypes';

/** Throws the refusal when the account holds none of this machine's keys; `identityFile`: the template's ssh.identityFile. */
export async function checkAccountKey(ports: AgentPorts, identityFile?: string): Promise<void> {
  const api = await ports.api();
  const place = await ports.sshKeys();
  let check: Awaited<ReturnType<typeof accountKeyHere>>;
  try {
    check = await accountKeyHere({ api, home: place.home, preferred: [identityFile, ...place.preferred] });
  } catch (e) {
    // As for a click: a check that cannot be made does not block the rent (only SSH access is at stake).
    ports.log.warn(`agent: checking the account's SSH keys failed: ${describeError(e)}`);
    return;
  }
  if (check.found) return;
  const here = check.local.length
    ? `This machine has ${check.local.map((k) => k.publicPath).join(', ')}, which is not on your account.`
    : `No key pair was found in ${place.home}/.ssh.`;
  throw new ToolError(
    `Nothing was rented: your account has no SSH public key whose private key is on this machine, so the new machine would refuse every SSH login while it bills. ${here} ${place.howToAdd} Then rent again.`,
  );
}
