// GET /api/v0/users/spend-rate (service-today.md section 11): what the account is billed per hour
// now, stopped disks and volumes included. Read tolerantly: an answer without both of its main
// rates reads as no answer (the caller computes the rate instead), never as $0/h.
import * as z from 'zod/mini';
import { lbool, lnum } from './schemaBasics';

export interface SpendRate {
  gpuPerHour: number;
  containerStoragePerHour: number;
  volumeStoragePerHour: number;
  /** gpu + container storage + volumes. */
  totalPerHour: number;
  hasActiveResources?: boolean;
}

const nonNegative = (v: number | null | undefined): number | undefined => (typeof v === 'number' && v >= 0 ? v : undefined);

export const spendRateSchema = z.pipe(
  z.looseObject({ gpu_cost_per_hour: lnum, container_storage_cost_per_hour: lnum, volume_storage_cost_per_hour: lnum, has_active_resources: lbool }),
  z.transform((w): SpendRate | undefined => {
    const gpu = nonNegative(w.gpu_cost_per_hour);
    const container = nonNegative(w.container_storage_cost_per_hour);
    if (gpu === undefined || container === undefined) return undefined;
    const volume = nonNegative(w.volume_storage_cost_per_hour) ?? 0;
    return {
      gpuPerHour: gpu,
      containerStoragePerHour: container,
      volumeStoragePerHour: volume,
      totalPerHour: gpu + container + volume,
      ...(typeof w.has_active_resources === 'boolean' ? { hasActiveResources: w.has_active_resources } : {}),
    };
  }),
);
