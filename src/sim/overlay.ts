// Overlay networks on physical clusters (service-today.md section 11): POST/GET/PUT/DELETE
// /api/v0/overlay/, and joining one at creation with the env entry "-n NAME". Each member gets its
// own loopback address 127.<netBase>.<octet>.<n> as its eth0 (the SSH servers and the fake `ip`
// of src/sim/memberNet.ts use it), so members of one overlay reach each other over real TCP.
import { fail } from './simError';
import { destroyInstance } from './instances';
import { instanceEnded } from './onstart';
import type { OfferRecord } from './offers';
import type { SimInstance, SimOverlay, SimState } from './state';

interface Reply {
  status: number;
  body: unknown;
}

/** Overlay names as the CLI's `--env "-n NAME"` passes them (it keeps only [a-z0-9-]; the service's names are a little wider). */
export const OVERLAY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** The env key that joins an instance to an overlay at creation. */
export const JOIN_KEY = /^-n\s+(\S+)$/;
const MAX_MEMBERS = 250;

export const overlayMembers = (state: SimState, ov: SimOverlay): SimInstance[] =>
  [...state.instances.values()].filter((i) => i.overlay?.id === ov.id).sort((a, b) => a.id - b.id);

const subnetOf = (state: SimState, ov: SimOverlay): string => `127.${state.netBase}.${ov.octet}.0/24`;

function render(state: SimState, ov: SimOverlay): Record<string, unknown> {
  const ids = overlayMembers(state, ov).map((i) => i.id);
  const subnet = subnetOf(state, ov);
  // `subnet` as the reference shows it; `internal_subnet` is what the official CLI reads.
  return { overlay_id: ov.id, name: ov.name, subnet, internal_subnet: subnet, cluster_id: ov.clusterId, instance_count: ids.length, instances: ids };
}

function byName(state: SimState, name: string): SimOverlay | undefined {
  return [...state.overlays.values()].find((o) => o.name === name);
}

const noSuchOverlay = (what: string, extra?: Record<string, unknown>) =>
  fail(404, 'no_such_overlay', `No overlay network ${what} on this account. List them with GET /api/v0/overlay/ or create one first.`, extra);

/** Refuses a machine that cannot join the overlay (the create then fails, nothing created); `extra` goes into the error (a creation's ask_id). */
export function checkJoin(state: SimState, ov: SimOverlay, offer: OfferRecord, vm: boolean, extra?: Record<string, unknown>): void {
  if (vm) throw fail(400, 'overlay_vm_unsupported', `Overlay '${ov.name}' takes Docker instances only, not VMs. Create a Docker instance instead.`, extra);
  if (offer.cluster_id !== ov.clusterId) {
    throw fail(
      400,
      'overlay_cluster_mismatch',
      `Machine ${String(offer.machine_id)} (offer ${offer.id}) is not in cluster ${ov.clusterId} of overlay '${ov.name}'. Pick an offer with cluster_id=${ov.clusterId}.`,
      extra,
    );
  }
  if (overlayMembers(state, ov).length >= MAX_MEMBERS) throw fail(400, 'overlay_full', `Overlay '${ov.name}' already has ${MAX_MEMBERS} instances.`, extra);
}

/** The overlay an instance creation joins (its env entry "-n NAME"), checked against the offer; undefined without one. */
export function overlayOfCreation(state: SimState, env: Record<string, string>, offer: OfferRecord, vm: boolean): SimOverlay | undefined {
  const names = Object.keys(env).flatMap((k) => JOIN_KEY.exec(k)?.[1] ?? []);
  if (!names.length) return undefined;
  // Like every creation error of the live service, these carry the offer as ask_id.
  const extra = state.era === 'today' ? { ask_id: offer.id } : undefined;
  if (names.length > 1) throw fail(400, 'invalid_args', 'An instance joins one overlay network: give one "-n NAME" env entry.', extra);
  const ov = byName(state, names[0]!);
  if (!ov) throw noSuchOverlay(`named '${names[0]!.slice(0, 64)}'`, extra);
  checkJoin(state, ov, offer, vm, extra);
  return ov;
}

/** Puts the instance on the overlay with the lowest free address of its subnet (.2 up; .1 is the gateway's). */
export function joinOverlay(state: SimState, ov: SimOverlay, inst: SimInstance): void {
  const taken = new Set(overlayMembers(state, ov).map((i) => i.overlay!.addr));
  for (let host = 2; host < 2 + MAX_MEMBERS; host++) {
    const addr = `127.${state.netBase}.${ov.octet}.${host}`;
    if (!taken.has(addr)) {
      inst.overlay = { id: ov.id, addr };
      return;
    }
  }
}

function positiveInt(v: unknown, what: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) throw fail(400, 'invalid_args', `${what} must be a positive integer.`);
  return n;
}

function create(state: SimState, json: Record<string, unknown>): Reply {
  const clusterId = positiveInt(json.cluster_id, 'cluster_id');
  const name = json.name;
  if (typeof name !== 'string' || !OVERLAY_NAME.test(name)) {
    throw fail(400, 'invalid_args', 'name must be 1 to 64 letters, digits, "-", "_" or "." (starting with a letter or digit).');
  }
  if (!state.offers.some((o) => o.cluster_id === clusterId)) {
    throw fail(404, 'no_such_cluster', `Cluster ${clusterId} has no machines on offer. Search offers with cluster_id!=None to find a physical cluster.`);
  }
  if (byName(state, name)) throw fail(400, 'overlay_name_taken', `An overlay named '${name}' already exists. Pick another name or delete that overlay.`);
  const used = new Set([...state.overlays.values()].map((o) => o.octet));
  let octet = 1;
  while (used.has(octet) && octet < 255) octet++;
  if (used.has(octet)) throw fail(400, 'overlay_limit', 'This account has too many overlay networks. Delete one first.');
  const ov: SimOverlay = { id: state.ids.overlay++, name, clusterId, octet };
  state.overlays.set(ov.id, ov);
  return { status: 200, body: { msg: `Created overlay '${name}' (id ${ov.id}) on cluster ${clusterId}.` } };
}

function join(state: SimState, json: Record<string, unknown>): Reply {
  if (typeof json.name !== 'string' || !json.name) throw fail(400, 'invalid_args', 'name (the overlay network name) is required.');
  const id = positiveInt(json.instance_id, 'instance_id');
  const ov = byName(state, json.name);
  if (!ov) throw noSuchOverlay(`named '${json.name.slice(0, 64)}'`);
  const inst = state.instances.get(id);
  if (!inst) throw fail(404, 'no_such_instance', `Instance ${id} does not exist (it may have been destroyed).`);
  if (inst.overlay?.id === ov.id) return { status: 200, body: { msg: `Instance ${id} is already on overlay '${ov.name}'.` } };
  if (inst.overlay) throw fail(400, 'already_in_overlay', `Instance ${id} is already on another overlay network; an instance joins one.`);
  checkJoin(state, ov, inst.offer, inst.vm);
  joinOverlay(state, ov, inst);
  return { status: 200, body: { msg: `Instance ${id} joined overlay '${ov.name}'.` } };
}

function remove(state: SimState, json: Record<string, unknown>): Reply {
  let ov: SimOverlay | undefined;
  if (json.overlay_id !== undefined && json.overlay_id !== null) {
    const id = positiveInt(json.overlay_id, 'overlay_id');
    ov = state.overlays.get(id);
    if (!ov) throw noSuchOverlay(`with id ${id}`);
  } else if (typeof json.overlay_name === 'string' && json.overlay_name) {
    ov = byName(state, json.overlay_name);
    if (!ov) throw noSuchOverlay(`named '${json.overlay_name.slice(0, 64)}'`);
  } else {
    throw fail(400, 'invalid_args', 'Give overlay_id or overlay_name.');
  }
  // Deleting an overlay removes the instances on it (they are destroyed).
  const members = overlayMembers(state, ov);
  for (const inst of members) {
    destroyInstance(state, inst);
    instanceEnded(state, inst.id);
  }
  state.overlays.delete(ov.id);
  return { status: 200, body: { msg: `Deleted overlay '${ov.name}' and its ${members.length} instance(s).` } };
}

/** /api/v0/overlay/: undefined for other paths. */
export function routeOverlay(state: SimState, method: string, path: string, json: Record<string, unknown>, readOnly: boolean): Reply | undefined {
  if (path !== '/api/v0/overlay') return undefined;
  if (method === 'GET') return { status: 200, body: [...state.overlays.values()].sort((a, b) => a.id - b.id).map((o) => render(state, o)) };
  if (readOnly) throw fail(403, 'permission_denied', 'This API key is read-only. Use a key with write permission.');
  if (method === 'POST') return create(state, json);
  if (method === 'PUT') return join(state, json);
  if (method === 'DELETE') return remove(state, json);
  throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
}
