import type { Services } from '../../model/services';
import { setInstanceStateCommand } from './setInstanceState';

export function startInstanceCommand(services: Services) {
  return setInstanceStateCommand(services, {
    to: 'running',
    from: ['stopped', 'failed'],
    verb: 'Start Instance',
    none: 'No stopped instance to start.',
    pending: 'Starting…',
    failure: 'Could not start',
  });
}
