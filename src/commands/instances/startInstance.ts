import type { Services } from '../../host/services';
import { setInstanceState } from './setInstanceState';

export function startInstance(services: Services, arg?: unknown): Promise<boolean> {
  return setInstanceState(
    services,
    { to: 'running', from: ['stopped', 'failed'], verb: 'Start Instance', none: 'No stopped instance to start.', pending: 'Starting…', failure: 'Could not start' },
    arg,
  );
}
