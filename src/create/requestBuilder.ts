// Template -> the search query and the creation request. The label gets a unique
// suffix per click so an ambiguous create can be found again by listing instances.
import type { CreateInstanceRequest, OfferQuery } from '../api/types';
import type { Template } from './templateSchema';

export function buildOfferQuery(t: Template): OfferQuery {
  const o = t.offer ?? {};
  const q: OfferQuery = {};
  if (o.gpuNames) q.gpuNames = [...o.gpuNames];
  if (o.numGpus !== undefined) q.numGpus = o.numGpus;
  if (o.minNumGpus !== undefined) q.minNumGpus = o.minNumGpus;
  if (o.minGpuRamGb !== undefined) q.minGpuRamGb = o.minGpuRamGb;
  if (o.minReliability !== undefined) q.minReliability = o.minReliability;
  if (o.verified !== undefined) q.verified = o.verified;
  if (o.rentable !== undefined) q.rentable = o.rentable;
  if (o.minDirectPorts !== undefined) q.minDirectPorts = o.minDirectPorts;
  if (o.maxDphTotal !== undefined) q.maxDphTotal = o.maxDphTotal;
  q.type = o.type ?? 'on-demand';
  if (o.order) q.order = o.order.map(([f, d]) => [f, d] as [string, 'asc' | 'desc']);
  else if (o.rank === 'best-value') q.order = [['dlperf_per_dphtotal', 'desc']];
  else q.order = [['dph_total', 'asc']];
  if (o.limit !== undefined) q.limit = o.limit;
  // The disk to be rented, so the quoted dph_total (which includes storage) is the price paid.
  q.allocatedStorage = t.instance.disk ?? 8;
  return q;
}

/** The template's label, or a slug of its name, without the per-click suffix. */
export function baseLabel(t: Template): string {
  const raw = t.instance.label ?? t.name;
  const slug = raw
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (slug || 'gpu').slice(0, 56);
}

/**
 * `<label>-<4 random base36>`: unique per click (1.7 million suffixes per label), so
 * reconciliation can find exactly this creation; short, so the row keeps its price in view.
 */
export function uniqueLabel(base: string, random: () => number = Math.random): string {
  let suffix = '';
  while (suffix.length < 4) suffix += Math.floor(random() * 36).toString(36);
  return `${base}-${suffix}`;
}

const COPIED = [
  'image',
  'template_hash_id',
  'disk',
  'runtype',
  'target_state',
  'args_str',
  'use_jupyter_lab',
  'jupyter_dir',
  'python_utf8',
  'lang_utf8',
  'image_login',
  'cancel_unavail',
  'vm',
] as const;

/**
 * The body of PUT /asks/{offer_id}/. `onstart` is the inline script or the content of
 * onstartFile (read by the caller). `price` is set only for bid templates: leaving it out
 * after a bid search would silently rent on-demand, and sending it on-demand is wrong.
 * env is sent as the object it is; with template_hash_id the server merges it with the
 * service template's env (request keys win). `extraEnv` (the idle guard's packed watchdog) is
 * added over the template's own.
 */
export function buildCreateRequest(t: Template, label: string, onstart?: string, extraEnv?: Record<string, string>): CreateInstanceRequest {
  const i = t.instance;
  const req: CreateInstanceRequest = {};
  for (const k of COPIED) {
    if (i[k] !== undefined) (req as Record<string, unknown>)[k] = i[k];
  }
  req.label = label;
  const env = { ...(i.env ?? {}), ...(extraEnv ?? {}) };
  if (Object.keys(env).length) req.env = env;
  const script = onstart ?? i.onstart;
  if (script !== undefined) req.onstart = script;
  if (i.volume_info) req.volume_info = { volume_id: i.volume_info.volume_id, mount_path: i.volume_info.mount_path };
  if (t.offer?.type === 'bid' && t.offer.bidPrice !== undefined) req.price = t.offer.bidPrice;
  return req;
}
