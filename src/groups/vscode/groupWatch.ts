// What the group commands read of the stores: the recorded groups.
import type { Services } from '../../core/vscode/services';
import { readGroups, type GroupRecord } from '../groupRecords';

export function groupsOf(services: Services): GroupRecord[] {
  return readGroups(services.globalState);
}
