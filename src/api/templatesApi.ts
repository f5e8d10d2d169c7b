// The service's template search: GET /api/v0/template/ with filters, columns and an order.
import type { ServiceApi } from './types';
import { invalid, type Pipeline } from './pipeline';
import * as l10n from '@vscode/l10n';

export function templatesApi(p: Pipeline): Pick<ServiceApi, 'searchTemplates'> {
  return {
    async searchTemplates(q = {}, o) {
      const params = new URLSearchParams();
      params.set('select_filters', JSON.stringify(q.filters ?? {}));
      params.set('select_cols', JSON.stringify(q.cols?.length ? q.cols : ['*']));
      if (q.orderBy) {
        if (!/^[-+]?[a-z_]+$/.test(q.orderBy)) throw invalid('searchTemplates', [l10n.t('orderBy: must be a column name, got {0}', q.orderBy)]);
        params.set('order_by', q.orderBy);
      }
      return p.send({ method: 'GET', path: `/api/v0/template/?${params.toString()}`, schema: (s) => s.templateListSchema }, o);
    },
  };
}
