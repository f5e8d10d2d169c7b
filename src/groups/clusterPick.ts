// Which physical clusters can hold a group: each cluster's offers that fit the template, N of
// them on N different machines, cheapest first; the clusters ranked by the group's total $/h.
import type { Offer } from '../api/types';

export interface ClusterChoice {
  clusterId: number;
  /** One offer per rank (rank 0 first), each on its own machine. */
  offers: Offer[];
  /** The group's price: the sum of its members' $/h. */
  totalDph: number;
}

/**
 * The clusters where `count` offers fit, cheapest total first. Offers without a cluster are
 * left out, as are two offers on one machine (one machine's failure must not take two ranks).
 * `maxTotal` (the template's maxDphTotal, per machine) is already applied by the search.
 */
export function clusterChoices(offers: readonly Offer[], count: number): ClusterChoice[] {
  const byCluster = new Map<number, Offer[]>();
  for (const o of offers) {
    if (typeof o.cluster_id !== 'number' || !Number.isFinite(o.dph_total)) continue;
    const list = byCluster.get(o.cluster_id) ?? [];
    list.push(o);
    byCluster.set(o.cluster_id, list);
  }
  const out: ClusterChoice[] = [];
  for (const [clusterId, list] of byCluster) {
    const machines = new Set<number>();
    const picked: Offer[] = [];
    for (const o of [...list].sort((a, b) => a.dph_total - b.dph_total || a.id - b.id)) {
      if (picked.length === count) break;
      if (o.machine_id != null) {
        if (machines.has(o.machine_id)) continue;
        machines.add(o.machine_id);
      }
      picked.push(o);
    }
    if (picked.length === count) out.push({ clusterId, offers: picked, totalDph: picked.reduce((s, o) => s + o.dph_total, 0) });
  }
  return out.sort((a, b) => a.totalDph - b.totalDph || a.clusterId - b.clusterId);
}
