// GET /api/v0/overlay/ (service-today.md section 11): the account's overlay networks, each a
// private network on one physical cluster. Read tolerantly: a row without an id or a name is
// dropped (nothing could address it), a missing member list reads as empty.
import * as z from 'zod/mini';
import { lenientBy, lnum, lstr } from './schemaBasics';

export interface Overlay {
  overlayId: number;
  name: string;
  clusterId?: number;
  /** e.g. "10.0.0.0/24". */
  subnet?: string;
  instanceIds: number[];
}

const ids = lenientBy((v) => (Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x) && x > 0) : undefined));

const overlayRow = z.pipe(
  z.looseObject({ overlay_id: lnum, name: lstr, cluster_id: lnum, subnet: lstr, instances: ids }),
  z.transform((w): Overlay | undefined => {
    if (typeof w.overlay_id !== 'number' || typeof w.name !== 'string' || !w.name) return undefined;
    return {
      overlayId: w.overlay_id,
      name: w.name,
      ...(typeof w.cluster_id === 'number' ? { clusterId: w.cluster_id } : {}),
      ...(typeof w.subnet === 'string' ? { subnet: w.subnet } : {}),
      instanceIds: w.instances ?? [],
    };
  }),
);

/** The list answers a bare array; some servers wrap it as {"overlays": [...]}. */
export const overlayListSchema = z.pipe(
  z.union([z.array(z.unknown()), z.looseObject({ overlays: z.optional(z.array(z.unknown())) })]),
  z.transform((w): Overlay[] => {
    const rows = Array.isArray(w) ? w : (w.overlays ?? []);
    return rows.flatMap((r) => {
      const got = z.safeParse(overlayRow, r);
      return got.success && got.data ? [got.data] : [];
    });
  }),
);
