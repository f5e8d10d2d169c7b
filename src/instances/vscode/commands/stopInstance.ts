import type { Services } from '../../../core/vscode/services';
import { stopOneInstance } from '../setInstanceState';

export function stopInstance(services: Services, arg?: unknown): Promise<boolean> {
  return stopOneInstance(services, arg);
}
