// The request shape of the live service's paged instance list (service-today.md section 2).

/** Rows per page: the service's default and maximum. */
export const V1_PAGE_LIMIT = 25;

/**
 * The columns the Instances view, tooltips, costs, the status bar, SSH entries and the create
 * flow read from a list row. Everything else (Details, Open Jupyter) loads the full record
 * with show-instance on demand.
 */
export const LIST_COLUMNS: readonly string[] = [
  'id',
  'actual_status',
  'intended_status',
  'label',
  'status_msg',
  'image_uuid',
  'image_runtype',
  'start_date',
  'uptime_mins',
  'ssh_host',
  'ssh_port',
  'public_ipaddr',
  'ports',
  'gpu_name',
  'num_gpus',
  'gpu_ram',
  'gpu_totalram',
  'cpu_name',
  'cpu_cores_effective',
  'cpu_ram',
  'disk_space',
  'geolocation',
  'reliability2',
  'is_bid',
  'min_bid',
  'gpu_util',
  'dph_total',
  'dph_base',
  'storage_cost',
  'storage_total_cost',
  'end_date',
  'instance',
  'credit_balance',
  'total_cost',
  // the idle guard reads its settings from onstart; Copy Jupyter Token and Open Jupyter use the token
  'onstart',
  'jupyter_token',
];

/** `/api/v1/instances/?limit=25&order_by=[id asc]…`: id order is a keyset order, stable across pages. */
export function v1ListPath(o: { cols?: readonly string[]; filters?: Record<string, unknown>; after?: string; limit?: number }): string {
  const q = new URLSearchParams();
  q.set('limit', String(o.limit ?? V1_PAGE_LIMIT));
  q.set('order_by', JSON.stringify([{ col: 'id', dir: 'asc' }]));
  if (o.cols) q.set('select_cols', JSON.stringify(o.cols));
  if (o.filters) q.set('select_filters', JSON.stringify(o.filters));
  if (o.after) q.set('after_token', o.after);
  return `/api/v1/instances/?${q.toString()}`;
}
