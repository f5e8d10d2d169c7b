import type { Services } from '../../model/services';
import { setInstanceStateCommand } from './setInstanceState';

export function stopInstanceCommand(services: Services) {
  return setInstanceStateCommand(services, {
    to: 'stopped',
    from: ['running', 'loading'],
    verb: 'Stop Instance',
    none: 'No running instance to stop.',
    pending: 'Stopping…',
    failure: 'Could not stop',
  });
}
