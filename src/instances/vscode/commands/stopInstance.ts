import type { Services } from '../../../core/vscode/services';
import { setInstanceState } from './setInstanceState';

export function stopInstance(services: Services, arg?: unknown): Promise<boolean> {
  return setInstanceState(
    services,
    { to: 'stopped', from: ['running', 'loading'], verb: 'Stop Instance', none: 'No running instance to stop.', pending: 'Stopping…', failure: 'Could not stop' },
    arg,
  );
}
