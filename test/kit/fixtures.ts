// Records as the client sees them, for tests that need an instance or an offer without a server.
import type { Instance, Offer } from '../../src/api/types';

/** A running instance "train <id>" with a direct SSH address (ssh5.example.net:40000+id); `over` replaces any field. */
export function instanceRecord(id: number, over: Partial<Instance> = {}): Instance {
  return { id, actual_status: 'running', state: 'running', label: `train ${id}`, ssh_host: 'ssh5.example.net', ssh_port: 40000 + id, ...over };
}

/** A bare instance in `state` (actual_status alike; intended running unless stopped), with `over`. */
export function instanceIn(id: number, state: Instance['state'], over: Partial<Instance> = {}): Instance {
  return { id, state, actual_status: state, intended_status: state === 'stopped' ? 'stopped' : 'running', ...over };
}

/** A one-GPU RTX 4090 offer at $0.50/h; `over` replaces any field. */
export function offerRecord(id: number, over: Partial<Offer> = {}): Offer {
  return { id, num_gpus: 1, gpu_name: 'RTX 4090', dph_total: 0.5, ...over };
}
