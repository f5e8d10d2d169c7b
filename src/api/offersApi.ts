// Offer search: POST /api/v0/bundles/ with the query checked and written in the service's
// units. A POST that only reads, so it is retried like a GET.
import type { OfferQuery, ServiceApi } from './types';
import { invalid, type Pipeline } from './pipeline';

export function offersApi(p: Pipeline): Pick<ServiceApi, 'searchOffers'> {
  return {
    async searchOffers(q: OfferQuery, o) {
      const s = await p.schemas();
      const problems = s.validateOfferQuery(q);
      if (problems.length) throw invalid('searchOffers', problems);
      return p.send(
        { method: 'POST', path: '/api/v0/bundles/', body: s.offerQueryToWire(q), schema: (s) => s.offerListSchema, pace: 'search', idempotent: true },
        o,
      );
    },
  };
}
