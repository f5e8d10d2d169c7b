// What the service bills and changes under a renter (service-today.md section 10): pending host
// price increases, per-day charges and the paged v1 invoices. Shapes of the official CLI
// (vastai/api/price_increase.py, vastai/api/billing.py) and the published reference.
import type { CallOptions } from './types';

/**
 * One pending increase of a running contract's price. Costs are per second (GPU, disk+RAM),
 * bandwidth per byte as the service sends it, the platform fee as sent; dates in epoch seconds.
 * Any of them may be null.
 */
export interface PendingPriceIncrease {
  pending_price_increase_id: number;
  /** The instance id. */
  contract_id: number;
  host_id?: number | null;
  old_gpu_costpersec?: number | null;
  new_gpu_costpersec?: number | null;
  old_disk_ram_costpersec?: number | null;
  new_disk_ram_costpersec?: number | null;
  old_bwu_cost?: number | null;
  new_bwu_cost?: number | null;
  old_bwd_cost?: number | null;
  new_bwd_cost?: number | null;
  old_platform_fee?: number | null;
  new_platform_fee?: number | null;
  contract_end_date?: number | null;
  ask_end_date?: number | null;
  created_at?: number | null;
}

export interface PendingPriceIncreaseList {
  count: number;
  truncated: boolean;
  pending_price_increases: PendingPriceIncrease[];
}

/** The only body accept-price-increase and reject-price-increase take. */
export interface PriceIncreaseDecision {
  pending_price_increase_id: number;
}

export type ChargeType = 'instance' | 'volume' | 'serverless';

/** One part of a charge (GPU time, disk, bandwidth…). */
export interface ChargeItem {
  type: string;
  amount: number;
  description?: string;
}

/** One row of GET /api/v0/charges/: what one source cost over one day. */
export interface Charge {
  /** Epoch seconds. */
  start: number;
  end: number;
  /** instance, volume, serverless, or a type this client does not know yet. */
  type: string;
  /** `instance-<id>` for an instance. */
  source: string;
  description?: string;
  /** Dollars. */
  amount: number;
  metadata?: { label?: string | null; template_id?: number | null };
  items: ChargeItem[];
}

export interface ChargeQuery {
  /** Epoch seconds, inclusive. */
  from: number;
  to: number;
  types?: ChargeType[];
}

export interface Invoice {
  id: number;
  /** Epoch seconds. */
  when: number;
  /** What the row is for: instance, volume, serverless, credit (a payment)… */
  service: string;
  /** Dollars; a charge is positive, a payment negative. */
  amount: number;
  description?: string;
  source?: string;
}

export interface InvoiceQuery {
  from: number;
  to: number;
}

/** The billing calls of the client (src/api/billingApi.ts). */
export interface BillingApi {
  /** GET /api/v0/instances/pending-price-increases/ */
  listPendingPriceIncreases(o?: CallOptions): Promise<PendingPriceIncreaseList>;
  /** PUT /api/v0/instances/accept-price-increase/ with exactly {"pending_price_increase_id": id}. */
  acceptPriceIncrease(id: number, o?: CallOptions): Promise<{ success?: boolean; msg?: string }>;
  /** PUT /api/v0/instances/reject-price-increase/ with exactly {"pending_price_increase_id": id}. */
  rejectPriceIncrease(id: number, o?: CallOptions): Promise<{ success?: boolean; msg?: string }>;
  /** Every charge row of the days from..to (all pages). */
  listCharges(q: ChargeQuery, o?: CallOptions): Promise<Charge[]>;
  /** The same walk, each page handed to `onPage` and none kept (what a sum of the charges uses). */
  forEachChargePage(q: ChargeQuery, onPage: (rows: readonly Charge[]) => void, o?: CallOptions): Promise<void>;
  /** Every invoice row from..to (all pages of GET /api/v1/invoices/). */
  listInvoices(q: InvoiceQuery, o?: CallOptions): Promise<Invoice[]>;
}
