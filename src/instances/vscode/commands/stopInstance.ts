import type { Services } from '../../../core/vscode/services';
import { stopOneInstance } from '../setInstanceState';

export function stopInstance(services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'showLog'>, arg?: unknown): Promise<boolean> {
  return stopOneInstance(services, arg);
}
