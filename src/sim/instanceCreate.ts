// Instance creation (PUT/POST /api/v0/asks/{id}/): the body checked field by field as the
// service does, then the offer, then the instance made; and seeded instances for tests and the demo.
import { fail } from './simError';
import type { OfferRecord } from './offers';
import { findTemplate, randomKey, type SimInstance, type SimState, type SimTemplate } from './state';
import { keyName } from './instances';
import { JOIN_KEY, joinOverlay, overlayOfCreation } from './overlay';
import { applyBootFault } from './bootFaults';

const RUNTYPES = new Set(['ssh', 'ssh_direct', 'ssh_proxy', 'jupyter', 'jupyter_direct', 'jupyter_proxy', 'args']);

const PORT_KEY = /^-p\s+(\d{1,5}):(\d{1,5})(\/(tcp|udp))?$/;

/** Canonical runtype tokens from the spec's names or the CLI's space-separated `direc` list. */
export function parseRuntype(raw: string): string[] {
  const tokens = raw
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.replace(/_direc$/, '_direct'));
  if (!tokens.length) throw fail(400, 'invalid_args', 'runtype must not be empty; use ssh_direct, ssh_proxy, jupyter_direct, jupyter_proxy or args.');
  for (const t of tokens) {
    if (!RUNTYPES.has(t)) {
      throw fail(400, 'invalid_args', `runtype '${t}' is not supported; use ssh_direct, ssh_proxy, jupyter_direct, jupyter_proxy or args.`);
    }
  }
  const out = new Set<string>();
  for (const t of tokens) out.add(t === 'ssh' ? 'ssh_proxy' : t === 'jupyter' ? 'jupyter_proxy' : t);
  if (out.has('args') && out.size > 1) throw fail(400, 'invalid_args', "runtype 'args' cannot be combined with ssh or jupyter.");
  return [...out];
}

const given = (v: unknown) => v !== undefined && v !== null;

function optType(body: Record<string, unknown>, key: string, type: 'string' | 'boolean' | 'number'): void {
  const v = body[key];
  if (given(v) && typeof v !== type) throw fail(400, 'invalid_args', `${key} must be a ${type}.`);
}

/** The offer of a creation, and whether the instance starts stopped (an unschedulable machine). */
function checkOffer(
  state: SimState,
  offerId: number,
  body: Record<string, unknown>,
  price: number | null,
  target: string,
): { offer: OfferRecord; startsStopped: boolean } {
  // The offer: checked last, after the body validated, as the real service does.
  // Every creation error of the live service carries the offer as ask_id.
  const today = state.era === 'today';
  const askFail = (status: number, error: string, msg: string) => fail(status, error, msg, today ? { ask_id: offerId } : {});
  const offer = state.offers.find((o) => o.id === offerId);
  const interruptible = price !== null;
  // The live service's defaults: fail fast for on-demand started running, wait (stopped) for interruptible.
  const cancelUnavail = given(body.cancel_unavail) ? body.cancel_unavail === true : today ? !interruptible && target === 'running' : false;
  if (!offer || offer.rented || offer.taken || !offer.rentable) {
    if (body.cancel_unavail === true || (today && cancelUnavail)) {
      throw askFail(410, 'no_such_ask', `Offer ${offerId} is no longer available. Search again and pick another offer.`);
    }
    throw askFail(404, 'no_such_ask', `Offer ${offerId} is no longer available. Search again and pick another offer.`);
  }
  if (today && state.ownOffers.has(offerId)) {
    throw askFail(403, 'own_machine', `Offer ${offerId} is on one of your own machines; you cannot rent it. Pick another offer.`);
  }
  if (price !== null && price < offer.min_bid) {
    if (today) throw askFail(400, 'invalid_price', `Bid $${price}/h is below this offer's minimum bid $${offer.min_bid}/h. Raise the price.`);
    throw fail(400, 'bid_too_low', `Bid $${price}/h is below this offer's minimum bid $${offer.min_bid}/h. Raise the price.`);
  }
  if (body.vm === true && !state.sshKeys.some((k) => k.deleted_at === null)) {
    throw fail(400, 'no_ssh_key_for_vm', 'A VM instance needs an SSH key on the account. Add one (POST /api/v0/ssh/), then try again.', { ask_id: offerId });
  }
  if (state.user.credit <= 0) {
    throw fail(402, 'insufficient_credit', 'Your account has no credit left. Add credit, then try again.');
  }
  // A machine that cannot be scheduled now: with cancel_unavail the ask fails, without it the
  // instance is created stopped and waits (storage bills meanwhile).
  let startsStopped = false;
  if (today && state.unschedulable.has(offerId)) {
    if (cancelUnavail) throw askFail(410, 'no_such_ask', `Offer ${offerId} cannot be scheduled now. Pick another offer.`);
    startsStopped = true;
  }
  return { offer, startsStopped };
}

/** env: object only; "-p H:C" keys map ports; flag strings like "-e X=1" are rejected. */
function parseEnv(body: Record<string, unknown>, template: SimTemplate | null): Record<string, string> {
  const env: Record<string, string> = { ...(template?.env ?? {}) };
  if (given(body.env)) {
    if (typeof body.env !== 'object' || Array.isArray(body.env)) {
      throw fail(400, 'invalid_args', 'env must be a JSON object of NAME: value pairs (not a flag string).');
    }
    for (const [k, v] of Object.entries(body.env as Record<string, unknown>)) {
      if (k.startsWith('-')) {
        if (!PORT_KEY.test(k) && !JOIN_KEY.test(k)) {
          throw fail(
            400,
            'invalid_args',
            `env key '${k.slice(0, 40)}' is a flag string; use {"NAME": "value"} for variables, {"-p HOST:CONTAINER": "1"} for ports and {"-n OVERLAY": "1"} to join an overlay network.`,
          );
        }
      } else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
        throw fail(400, 'invalid_args', `env key '${k.slice(0, 40)}' is not a valid variable name.`);
      }
      if (v !== null && typeof v === 'object') throw fail(400, 'invalid_args', `env value of '${k.slice(0, 40)}' must be a string.`);
      env[k] = v === null || v === undefined ? '' : String(v);
    }
  }
  return env;
}

/** What a creation body asks for, each field checked (400 invalid_args with what to change). */
interface CreateSpec {
  template: SimTemplate | null;
  image: string;
  env: Record<string, string>;
  onstart: string | null;
  runtype: string[];
  argsStr: string | null;
  disk: number;
  target: 'running' | 'stopped';
  volume: SimInstance['volume'];
  price: number | null;
}

function parseCreateBody(body: Record<string, unknown>): CreateSpec {
  for (const k of ['image', 'template_hash_id', 'label', 'runtype', 'target_state', 'onstart', 'args_str', 'jupyter_dir', 'image_login']) {
    optType(body, k, 'string');
  }
  for (const k of ['use_jupyter_lab', 'python_utf8', 'lang_utf8', 'cancel_unavail', 'vm']) optType(body, k, 'boolean');

  let template: SimTemplate | null = null;
  if (given(body.template_hash_id)) {
    template = findTemplate(body.template_hash_id as string) ?? null;
    if (!template) {
      throw fail(404, 'invalid_template', `Template '${String(body.template_hash_id)}' was not found. Check the template hash id.`);
    }
  }
  const image = (given(body.image) ? (body.image as string) : template?.image) ?? '';
  if (!image.trim()) throw fail(400, 'invalid_args', 'image is required unless template_hash_id is given.');

  const env = parseEnv(body, template);

  const onstart = given(body.onstart) ? (body.onstart as string) : template?.onstart || null;
  if (onstart !== null && onstart.length > 4048) {
    throw fail(400, 'invalid_args', `onstart is ${onstart.length} characters; the limit is 4048. Compress and encode longer scripts.`);
  }

  const runtype = parseRuntype(given(body.runtype) ? (body.runtype as string) : (template?.runtype ?? 'ssh_proxy'));
  const isArgs = runtype.includes('args');
  let argsStr: string | null = null;
  if (given(body.args_str)) {
    if (!isArgs) throw fail(400, 'invalid_args', "args_str is only used with runtype 'args'; remove it or set runtype to args.");
    argsStr = body.args_str as string;
  } else if (isArgs && template?.args_str) argsStr = template.args_str;

  let disk = template?.disk ?? 8;
  if (given(body.disk)) {
    const d = typeof body.disk === 'string' ? Number(body.disk) : body.disk;
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > 100000) {
      throw fail(400, 'invalid_args', 'disk must be a positive number of GB.');
    }
    disk = d;
  }

  const target = given(body.target_state) ? (body.target_state as string) : 'running';
  if (target !== 'running' && target !== 'stopped') {
    throw fail(400, 'invalid_args', "target_state must be 'running' or 'stopped'.");
  }

  let volume: SimInstance['volume'] = null;
  if (given(body.volume_info)) {
    const v = body.volume_info as Record<string, unknown>;
    if (typeof v !== 'object' || Array.isArray(v) || !Number.isInteger(v.volume_id) || typeof v.mount_path !== 'string' || !v.mount_path.startsWith('/')) {
      throw fail(400, 'invalid_args', 'volume_info needs both volume_id (integer) and mount_path (absolute path).');
    }
    volume = { volume_id: v.volume_id as number, mount_path: v.mount_path };
  }

  let price: number | null = null;
  if (given(body.price)) {
    const p = typeof body.price === 'string' ? Number(body.price) : body.price;
    if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0) throw fail(400, 'invalid_args', 'price must be a positive number of dollars per hour.');
    price = p;
  }
  return { template, image, env, onstart, runtype, argsStr, disk, target, volume, price };
}

export function createInstance(state: SimState, offerId: number, body: Record<string, unknown>): { id: number; apiKey: string } {
  const { template, image, env, onstart, runtype, argsStr, disk, target, volume, price } = parseCreateBody(body);

  const { offer, startsStopped } = checkOffer(state, offerId, body, price, target);
  // "-n NAME": the overlay must exist and the machine be in its cluster, or nothing is created.
  const overlay = overlayOfCreation(state, env, offer, body.vm === true);

  state.accrue();
  const now = state.now();
  const id = state.ids.instance++;
  const apiKey = randomKey();
  const jupyter = runtype.some((t) => t.startsWith('jupyter'));
  const inst: SimInstance = {
    id,
    offer,
    label: given(body.label) ? (body.label as string) : null,
    image,
    runtype,
    env,
    onstart,
    argsStr,
    disk,
    intended: startsStopped ? 'stopped' : target,
    bootStart: now,
    bootSeconds: state.config.bootSeconds,
    restarts: 0,
    failure: null,
    createdAt: now,
    isBid: price !== null,
    price,
    apiKey,
    jupyterToken: jupyter ? randomKey() : null,
    template,
    dockerLogin:
      template?.docker_login_repo || given(body.image_login)
        ? {
            repo: template?.docker_login_repo,
            user: template?.docker_login_user,
            pass: template?.docker_login_pass,
            imageLogin: given(body.image_login) ? (body.image_login as string) : undefined,
          }
        : null,
    useJupyterLab: given(body.use_jupyter_lab) ? (body.use_jupyter_lab as boolean) : !!template?.use_jupyter_lab,
    jupyterDir: given(body.jupyter_dir) ? (body.jupyter_dir as string) : (template?.jupyter_dir ?? null),
    vm: body.vm === true,
    volume,
    totalCost: 0,
    storageTotal: 0,
    everStarted: target === 'running' && !startsStopped,
    unscheduled: startsStopped,
    sshKeys: state.sshKeys.filter((k) => k.deleted_at === null).map((k) => ({ id: k.id, name: keyName(k.public_key, k.id), public_key: k.public_key })),
  };
  if (overlay) joinOverlay(state, overlay, inst);
  applyBootFault(state, inst);
  state.instances.set(id, inst);
  offer.rented = true;
  return { id, apiKey };
}

/** Seeds N already-running instances on rentable offers. */
export function seedInstances(state: SimState, n: number): void {
  const free = state.offers.filter((o: OfferRecord) => !o.rented && !o.taken && o.rentable && o.verified);
  for (let i = 0; i < n && i < free.length; i++) {
    // Spread over the catalogue; on a collision take the next free offer, so n offers give n instances.
    let offer = free[(i * 7) % free.length]!;
    if (offer.rented) offer = free.find((o) => !o.rented) ?? offer;
    if (offer.rented) break;
    const { id } = createInstance(state, offer.id, { image: 'vastai/base-image:cuda-12.4.1-auto', runtype: 'ssh_direct', label: `seeded-${i + 1}` });
    const inst = state.instances.get(id)!;
    inst.bootStart = state.now() - inst.bootSeconds - 60 * (i + 1);
    inst.createdAt = inst.bootStart;
  }
}
