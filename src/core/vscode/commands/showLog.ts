// gpuRental.showLog: the "GPU Rental" output channel (secrets redacted).
import type { Services } from '../services';

export async function showLog(services: Pick<Services, 'showLog'>): Promise<void> {
  services.showLog();
}
