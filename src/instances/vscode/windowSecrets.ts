// The secret values this window knows (the connection's keys, what the client has sent or seen):
// masked in every instance value the Instances view's rows and Show Instance Details show.
import type { ServiceApi } from '../../api/types';
import type { Services } from '../../core/vscode/services';

export function windowSecrets(services: Pick<Services, 'connectionState'>, api: Pick<ServiceApi, 'knownSecrets'> | undefined): Array<string | undefined> {
  return [...services.connectionState.knownSecrets(), ...(api?.knownSecrets?.() ?? [])];
}
