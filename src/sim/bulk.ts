// Bulk calls (service-today.md section 11): POST /api/v0/asks/bulk/ creates one instance per offer
// id and is NOT all-or-nothing (success when at least one was created, 400 only when all fail);
// PUT /api/v0/instances/ starts, stops or labels several instances. Both take at most 64 ids.
import { SimFail, fail } from './simError';
import { createInstance } from './instanceCreate';
import { startInstance, stopInstance } from './instances';
import { instanceEnded, instanceStarted } from './onstart';
import type { SimState } from './state';

interface Reply {
  status: number;
  body: unknown;
}

export const BULK_MAX = 64;

function idList(raw: unknown, what: string): number[] {
  if (!Array.isArray(raw) || raw.length === 0) throw fail(400, 'invalid_args', `${what} must be a non-empty list of ids.`);
  if (raw.length > BULK_MAX) throw fail(400, 'invalid_args', `${what} holds ${raw.length} ids; at most ${BULK_MAX} per call. Split the list.`);
  return raw.map((v) => {
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) throw fail(400, 'invalid_args', `${what} must hold positive integer ids.`);
    return n;
  });
}

/** POST /api/v0/asks/bulk/ {ids, ...the creation body}: one creation per offer, each on its own. */
export function bulkCreate(state: SimState, json: Record<string, unknown>): Reply {
  const started = Date.now();
  const ids = idList(json.ids, 'ids');
  const { ids: _ids, ...body } = json;
  const results: Array<Record<string, unknown>> = [];
  for (const askId of ids) {
    try {
      const { id } = createInstance(state, askId, body);
      const inst = state.instances.get(id)!;
      instanceStarted(state, inst);
      results.push({ ask_id: askId, success: true, new_contract: id, state: inst.intended, msg: `Created instance ${id}.` });
    } catch (e) {
      if (!(e instanceof SimFail)) throw e;
      const b = e.body();
      results.push({ ask_id: askId, success: false, error: b.error, msg: b.msg });
    }
  }
  const created = results.filter((r) => r.success).length;
  const failed = results.length - created;
  const elapsed = Math.round(Date.now() - started) / 1000;
  if (created === 0) {
    return {
      status: 400,
      body: {
        success: false,
        error: 'no_instances_created',
        msg: `None of the ${failed} offers could be rented; see results.`,
        results,
        created,
        failed,
        elapsed,
      },
    };
  }
  return { status: 200, body: { success: true, results, created, failed, elapsed } };
}

/** PUT /api/v0/instances/ {ids, state?, label?}: every id must be the account's, or nothing changes. */
export function bulkUpdate(state: SimState, json: Record<string, unknown>): Reply {
  const ids = idList(json.ids, 'ids');
  const missing = ids.filter((id) => !state.instances.has(id));
  if (missing.length) throw fail(404, 'no_such_instance', `No instance ${missing.join(', ')} on this account (destroyed?); nothing was changed.`);
  const st = json.state;
  if (st !== undefined && st !== null && st !== 'running' && st !== 'stopped') throw fail(400, 'invalid_args', "state must be 'running' or 'stopped'.");
  if (json.label !== undefined && json.label !== null && typeof json.label !== 'string') throw fail(400, 'invalid_args', 'label must be a string.');
  if ((st === undefined || st === null) && json.label === undefined) {
    throw fail(400, 'invalid_args', 'Nothing to change: send {"ids": [...], "state": "running"|"stopped"} or {"ids": [...], "label": "..."}.');
  }
  for (const id of ids) {
    const inst = state.instances.get(id)!;
    if (st === 'stopped') {
      stopInstance(state, inst);
      instanceEnded(state, id);
    } else if (st === 'running') {
      startInstance(state, inst);
      instanceStarted(state, inst);
    }
    if (json.label !== undefined) inst.label = (json.label as string | null) || null;
  }
  const did = st === 'stopped' ? 'stopping' : st === 'running' ? 'starting' : 'labelled';
  return { status: 200, body: { success: true, msg: `${did} ${ids.length} instance(s).`, ids } };
}
