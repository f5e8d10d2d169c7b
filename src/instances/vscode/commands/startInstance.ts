import type { Services } from '../../../core/vscode/services';
import { setInstanceState } from '../setInstanceState';
import { background } from '../../../core/background';

export function startInstance(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog' | 'track'>, arg?: unknown): Promise<boolean> {
  return setInstanceState(
    services,
    {
      to: 'running',
      from: ['stopped', 'failed'],
      verb: 'Start Instance',
      none: 'No stopped instance to start.',
      pending: 'Starting…',
      failure: 'Could not start',
      // Like Create, a start ends with "running again" and Connect (with Connect's bundle, dist/connect.js).
      after: (id) =>
        background(
          import('../../../ssh/vscode/connectOffer').then((m) => m.offerConnectWhenRunning(services, id)),
          services.log,
          'offering Connect',
        ),
    },
    arg,
  );
}
