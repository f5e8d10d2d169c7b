// The group's private network: made on the chosen cluster before any member is rented (a member
// joins it at creation), deleted when the group is destroyed or unwound. Making one costs nothing,
// so a lost answer is settled by listing the networks by name, never by making a second.
import { errorKind, errorStatus } from '../core/describeError';
import { logText, userMessageOf } from '../create/flowTypes';
import type { GroupFlowPorts } from './groupTypes';
import * as l10n from '@vscode/l10n';

type Ports = Pick<GroupFlowPorts, 'api' | 'log'>;

async function findByName(ports: Ports, name: string): Promise<{ overlayId: number } | undefined | 'unreadable'> {
  try {
    const o = (await ports.api.listOverlays()).find((x) => x.name === name);
    return o ? { overlayId: o.overlayId } : undefined;
  } catch (e) {
    ports.log.warn(`group: listing networks failed: ${logText(e)}`);
    return 'unreadable';
  }
}

/** Makes the network `name` on `clusterId`: its id when the list shows it (absent: deleted by name later), or why not. */
export async function createNetwork(
  ports: Ports,
  clusterId: number,
  name: string,
  signal?: AbortSignal,
): Promise<{ overlayId?: number } | { problem: string }> {
  try {
    await ports.api.createOverlay(clusterId, name, signal ? { signal } : undefined);
  } catch (e) {
    ports.log.warn(`group: making network "${name}" on cluster ${clusterId} failed: ${logText(e)}`);
    // A 4xx refusal proves nothing was made; anything else (5xx, no answer) is checked in the list.
    const status = errorStatus(e);
    const refused = errorKind(e) === 'http' && status !== undefined && status >= 400 && status < 500;
    const found = refused ? undefined : await findByName(ports, name);
    if (found && found !== 'unreadable') return found;
    // Made or not, a network without machines costs nothing: delete it by name in case it was.
    if (!refused) await deleteNetwork(ports, { name });
    return { problem: l10n.t('The private network for the group could not be made. {0}', userMessageOf(e)) };
  }
  const found = await findByName(ports, name);
  return found && found !== 'unreadable' ? found : {};
}

/** Deletes the network (by id, else by name); a failure is logged: a network without machines costs nothing. */
export async function deleteNetwork(ports: Ports, ref: { overlayId?: number; name: string }): Promise<boolean> {
  try {
    await ports.api.deleteOverlay(ref.overlayId !== undefined ? { overlayId: ref.overlayId } : { name: ref.name });
    ports.log.info(`group: deleted network "${ref.name}"`);
    return true;
  } catch (e) {
    ports.log.warn(`group: deleting network "${ref.name}" failed: ${logText(e)}`);
    return false;
  }
}
