// gpuRental.refresh: the instance list now, and the offer search when it is shown.
import type { Services } from '../../../core/vscode/services';

export async function refresh(services: Pick<Services, 'instances' | 'offers'>): Promise<void> {
  await Promise.all([services.instances.refresh(), services.offers.refreshIfShown()]);
}
