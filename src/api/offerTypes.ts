// Offers as everything above the API layer sees them (offerSchemas.ts parses the wire into
// them) and the offer search as callers think of it.

/** An offer (search result). Unknown fields are ignored. */
export interface Offer {
  id: number;
  num_gpus: number;
  gpu_name: string;
  dph_total: number;
  gpu_ram?: number | null; // MB
  gpu_totalram?: number | null; // MB
  reliability?: number | null; // fraction (reliability2 on the wire in some places)
  verified?: boolean | null;
  verification?: string | null;
  rentable?: boolean | null;
  direct_port_count?: number | null;
  geolocation?: string | null;
  dlperf?: number | null;
  dlperf_per_dphtotal?: number | null;
  score?: number | null;
  min_bid?: number | null;
  is_bid?: boolean | null;
  cpu_cores_effective?: number | null;
  cpu_name?: string | null;
  cpu_ram?: number | null;
  disk_space?: number | null;
  inet_down?: number | null;
  inet_up?: number | null;
  cuda_max_good?: number | null;
  machine_id?: number | null;
  host_id?: number | null;
  storage_cost?: number | null;
  /** The physical cluster the machine is in (fast local networking between its machines); absent: none. */
  cluster_id?: number | null;
}

export type SortField = string;

/** Operators of the service's search filters. */
export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'notin';
export type FilterScalar = string | number | boolean;
export type FilterValue = FilterScalar | FilterScalar[];
/** The service's own search filters: field -> operator -> value, in wire units (MB, seconds). */
export type OfferFilters = Record<string, Partial<Record<FilterOp, FilterValue>>>;

/**
 * Offer search as callers think of it. GPU memory is in GB here; the client sends MB (×1000).
 * Numeric ranges use the spec's operators; the client builds the wire filter object.
 */
export interface OfferQuery {
  gpuNames?: string[]; // one -> {eq}, several -> {in}
  numGpus?: number; // exact
  minNumGpus?: number; // gte
  minGpuRamGb?: number;
  minReliability?: number; // fraction 0..1
  verified?: boolean; // default true
  rentable?: boolean; // default true
  minDirectPorts?: number;
  maxDphTotal?: number; // lte on dph_total
  offerId?: number; // one offer by id (eq): to read a preselected offer afresh
  /** Only offers in a physical cluster: 'any' (cluster_id != None), or this cluster. */
  clusterId?: number | 'any';
  type?: 'on-demand' | 'bid'; // default on-demand
  order?: Array<[SortField, 'asc' | 'desc']>; // default [['score','desc']]
  limit?: number;
  /**
   * The service's own filter object (from a CLI query or a script). When present it is the whole
   * filter: the friendly keys above and their defaults are not added (order, type and limit still apply).
   */
  filters?: OfferFilters;
  /** The CLI query text this search was parsed from (shown instead of a summary). */
  text?: string;
  /** Disk in GB the quoted dph_total includes (the service's allocated_storage). */
  allocatedStorage?: number;
}
