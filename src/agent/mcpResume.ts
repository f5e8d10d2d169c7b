// The server's own watch of what its calls rented: every in-flight record (a rent whose answer
// was lost, a machine that appears late, a server stopped mid-rent) is watched until the list
// shows it settle, and one that comes up gets its SSH entry. At start-up every record is watched;
// after a rent, those the create flow stopped waiting for (late). Nothing is rented or destroyed here.
import { background } from '../core/background';
import { readInflight, resumeInflight } from '../create/createFlow';
import type { AgentPorts } from './toolTypes';

/** Rentals being watched (by id, else label), so none is watched twice. */
const watched = new Set<number | string>();

export function resumeMcpRentals(ports: AgentPorts, which: 'all' | 'late' = 'all'): void {
  const records = readInflight(ports.state).filter((r) => (which === 'all' || r.late === true) && !watched.has(r.instanceId ?? r.label));
  if (!records.length) return;
  const keys = records.map((r) => r.instanceId ?? r.label);
  for (const k of keys) watched.add(k);
  ports.log.info(`agent: watching ${records.length} rental(s) whose machine has not settled`);
  background(
    (async () => {
      try {
        const api = await ports.api();
        const results = await resumeInflight(
          { api, log: ports.log, clock: ports.clock, ssh: ports.ssh, state: ports.state },
          {
            only: keys,
            ...(ports.pollIntervalMs ? { intervalMs: ports.pollIntervalMs } : {}),
            onFailed: (r, message) => ports.log.warn(`agent: the rental "${r.label}" failed: ${message}`),
          },
        );
        for (const r of results)
          ports.log.info(
            `agent: rental "${r.label}"${r.instanceId !== undefined ? ` (instance ${r.instanceId})` : ''}: ${r.outcome}${r.alias ? `, ssh ${r.alias}` : ''}`,
          );
      } finally {
        for (const k of keys) watched.delete(k);
      }
    })(),
    ports.log,
    'watching rentals',
  );
}
