// The billing calls (service-today.md section 10), built from the pieces the client's request
// pipeline hands over: `send` (auth, retries of safe requests, parsing) and `validate` (a request
// body checked before sending). createApiClient spreads them into the one ServiceApi.
import type * as z from 'zod/mini';
import type { CallOptions } from './types';
import type * as Schemas from './schemas';
import type { BillingApi, Charge, ChargeQuery, Invoice, InvoiceQuery } from './billingTypes';
import type { Page } from './billingSchemas';
import { ApiError } from './errors';

export interface BillingEndpoint<T> {
  method: 'GET' | 'PUT';
  path: string;
  body?: unknown;
  schema: (s: typeof Schemas) => z.ZodMiniType<T>;
  emptyOk?: boolean;
}

export interface BillingPipeline {
  send<T>(ep: BillingEndpoint<T>, o: CallOptions | undefined): Promise<T>;
  validate(endpoint: string, schema: (s: typeof Schemas) => z.ZodMiniType, body: unknown): Promise<void>;
}

export const PENDING_INCREASES_PATH = '/api/v0/instances/pending-price-increases/';
export const ACCEPT_INCREASE_PATH = '/api/v0/instances/accept-price-increase/';
export const REJECT_INCREASE_PATH = '/api/v0/instances/reject-price-increase/';
export const CHARGES_PATH = '/api/v0/charges/';
export const INVOICES_PATH = '/api/v1/invoices/';
/** The most rows one page may ask for. */
export const BILLING_PAGE_LIMIT = 100;
/** A walk stops here (10,000 rows): a month of charges is a few hundred. */
const MAX_PAGES = 100;

function checkRange(name: string, q: { from: number; to: number }): void {
  const problems: string[] = [];
  if (!Number.isFinite(q.from)) problems.push('from: must be epoch seconds');
  if (!Number.isFinite(q.to)) problems.push('to: must be epoch seconds');
  if (!problems.length && q.to < q.from) problems.push('to: must not be before from');
  if (problems.length) throw new ApiError({ kind: 'invalid_request', problems, message: `${name}: request not sent: ${problems.join('; ')}` });
}

export function billingCalls(p: BillingPipeline): BillingApi {
  /**
   * Walks a paged list (limit, after_token) to its end, handing each page to `onPage` and keeping
   * none of it: memory holds one page, whatever the number of pages. A repeated token stops with an error.
   */
  async function walk<T>(
    path: string,
    filters: Record<string, unknown>,
    schema: (s: typeof Schemas) => z.ZodMiniType<Page<T>>,
    onPage: (rows: readonly T[]) => void,
    o: CallOptions | undefined,
  ): Promise<void> {
    const seen = new Set<string>();
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ select_filters: JSON.stringify(filters), limit: String(BILLING_PAGE_LIMIT) });
      if (token) q.set('after_token', token);
      const r = await p.send({ method: 'GET', path: `${path}?${q.toString()}`, schema }, o);
      onPage(r.results);
      if (!r.next_token) return;
      if (seen.has(r.next_token) || r.results.length === 0)
        throw new ApiError({
          kind: 'malformed',
          method: 'GET',
          path,
          message: `GET ${path}: the service handed out the same page twice (next_token repeats); the walk was stopped`,
        });
      seen.add(r.next_token);
      token = r.next_token;
    }
    throw new ApiError({ kind: 'malformed', method: 'GET', path, message: `GET ${path}: more than ${MAX_PAGES} pages; the walk was stopped` });
  }

  async function collect<T>(each: (onPage: (rows: readonly T[]) => void) => Promise<void>): Promise<T[]> {
    const out: T[] = [];
    await each((rows) => {
      for (const r of rows) out.push(r);
    });
    return out;
  }

  function chargeWalk(q: ChargeQuery, onPage: (rows: readonly Charge[]) => void, o: CallOptions | undefined): Promise<void> {
    checkRange('listCharges', q);
    const filters: Record<string, unknown> = { day: { gte: Math.floor(q.from), lte: Math.ceil(q.to) } };
    if (q.types?.length) filters.type = { in: q.types };
    return walk(CHARGES_PATH, filters, (s) => s.chargePageSchema, onPage, o);
  }

  async function decide(name: string, path: string, id: number, o: CallOptions | undefined) {
    const body = { pending_price_increase_id: id };
    await p.validate(name, (s) => s.priceIncreaseDecisionSchema, body);
    return p.send({ method: 'PUT', path, body, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
  }

  return {
    listPendingPriceIncreases: (o) => p.send({ method: 'GET', path: PENDING_INCREASES_PATH, schema: (s) => s.pendingPriceIncreasesSchema }, o),
    acceptPriceIncrease: (id, o) => decide('acceptPriceIncrease', ACCEPT_INCREASE_PATH, id, o),
    rejectPriceIncrease: (id, o) => decide('rejectPriceIncrease', REJECT_INCREASE_PATH, id, o),
    listCharges: async (q, o) => collect<Charge>((onPage) => chargeWalk(q, onPage, o)),
    forEachChargePage: async (q, onPage, o) => chargeWalk(q, onPage, o),
    async listInvoices(q: InvoiceQuery, o) {
      checkRange('listInvoices', q);
      return collect<Invoice>((onPage) =>
        walk(INVOICES_PATH, { when: { gte: Math.floor(q.from), lte: Math.ceil(q.to) } }, (s) => s.invoicePageSchema, onPage, o),
      );
    },
  };
}
