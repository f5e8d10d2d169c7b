// Per-instance boot faults (fault kind 'boot'), so a client renting several machines at once can
// be tested for all or none: the instance created after `skip` more creations (on `offerId`, if
// given) never gets past loading, fails when its boot ends, boots in `seconds`, or shows up late.
import type { Fault, SimInstance, SimState } from './state';

type BootFault = Extract<Fault, { kind: 'boot' }>;

/** Applies the first pending boot fault that targets this new instance (each creation counts down every matching fault's `skip`). */
export function applyBootFault(state: SimState, inst: SimInstance): void {
  let hit: BootFault | undefined;
  for (const f of state.faults) {
    if (f.kind !== 'boot' || (f.offerId !== undefined && f.offerId !== inst.offer.id)) continue;
    if (f.skip > 0) f.skip--;
    else hit ??= f;
  }
  if (!hit) return;
  hit.count--;
  // Still pending with count left: it hits the next matching creations too.
  if (hit.count <= 0) state.faults.splice(state.faults.indexOf(hit), 1);
  const now = state.now();
  if (hit.mode === 'fail') inst.bootFault = { mode: 'fail', state: hit.state ?? 'exited' };
  else if (hit.mode === 'never') inst.bootFault = { mode: 'never', state: 'loading' };
  else if (hit.mode === 'slow') inst.bootSeconds = hit.seconds ?? inst.bootSeconds * 5;
  else inst.visibleAt = now + (hit.seconds ?? 30);
}

/** Validates a POST /_sim/fault body of kind 'boot'; the fault to queue, or why not. */
export function bootFaultOf(json: Record<string, unknown>, count: number): BootFault | string {
  const mode = json.mode;
  if (mode !== 'fail' && mode !== 'never' && mode !== 'slow' && mode !== 'late') return "mode must be 'fail', 'never', 'slow' or 'late'";
  const skip = json.skip === undefined ? 0 : Number(json.skip);
  if (!Number.isInteger(skip) || skip < 0) return 'skip must be a non-negative integer';
  const seconds = json.seconds === undefined ? undefined : Number(json.seconds);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 0)) return 'seconds must be a non-negative number';
  const offerId = json.offerId === undefined ? undefined : Number(json.offerId);
  if (offerId !== undefined && !Number.isInteger(offerId)) return 'offerId must be an offer id';
  if (json.state !== undefined && (typeof json.state !== 'string' || !json.state)) return "state must be a status such as 'exited'";
  return { kind: 'boot', mode, skip, offerId, seconds, state: json.state as string | undefined, count };
}
