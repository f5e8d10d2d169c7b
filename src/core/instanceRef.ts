// How a command's argument names an instance (or an offer), and which instances a command
// offers when it has to ask. One rule for every command, scripts included.
import type { Instance } from '../api/types';

/** A positive integer id: a number, or its decimal text, optionally as a tree item id (`instance:123`, `offer:7`). */
export function positiveId(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /^(?:[a-z]+:)?(\d{1,15})$/.exec(v.trim());
  const n = m ? Number(m[1]) : NaN;
  return n > 0 ? n : undefined;
}

/**
 * The instance id in what menus, scripts and callers pass: an id, an Instance, a tree node
 * (`{ id }`, `{ instanceId }`, `{ instance }`), or undefined when there is none.
 */
export function instanceIdOf(arg: unknown): number | undefined {
  const direct = positiveId(arg);
  if (direct !== undefined || typeof arg !== 'object' || arg === null) return direct;
  const o = arg as { instanceId?: unknown; instance?: unknown; id?: unknown };
  if (o.instanceId !== undefined) return positiveId(o.instanceId);
  if (typeof o.instance === 'object' && o.instance !== null) return positiveId((o.instance as { id?: unknown }).id);
  return positiveId(o.id);
}

/** The offer (a row's `{ offer }`, an Offer) or offer id in what Rent This Offer is given. */
export function offerRefOf<O extends { id: number }>(arg: unknown): O | number | undefined {
  const direct = positiveId(arg);
  if (direct !== undefined || typeof arg !== 'object' || arg === null) return direct;
  const o = arg as { offer?: unknown; id?: unknown; dph_total?: unknown };
  const offer = typeof o.offer === 'object' && o.offer !== null ? (o.offer as { id?: unknown }) : 'dph_total' in o ? o : undefined;
  return offer && positiveId(offer.id) !== undefined ? (offer as O) : undefined;
}

/** What a command with no argument offers: the instances its state rule allows, in list order. */
export type PickResult = { kind: 'none' } | { kind: 'one'; instance: Instance } | { kind: 'choose'; candidates: Instance[] };

/**
 * The picker rule: no candidate → tell the user; one candidate and the command acts on
 * it without harm (`takeOnly`, e.g. Connect) → use it; otherwise the user chooses.
 */
export function pickRule(instances: readonly Instance[], allowed: (i: Instance) => boolean, takeOnly = false): PickResult {
  const candidates = instances.filter(allowed);
  if (candidates.length === 0) return { kind: 'none' };
  if (takeOnly && candidates.length === 1) return { kind: 'one', instance: candidates[0]! };
  return { kind: 'choose', candidates };
}
