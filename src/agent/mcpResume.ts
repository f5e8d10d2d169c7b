// The server's own watch of what earlier calls rented: every in-flight record (a rent whose
// answer was lost, a machine that appeared late, a server that was stopped mid-rent) is watched
// from start-up until the list shows it settle; one that comes up gets its SSH entry. Nothing is
// rented or destroyed here.
import { background } from '../core/background';
import { readInflight, resumeInflight } from '../create/createFlow';
import type { AgentPorts } from './toolTypes';

export function resumeMcpRentals(ports: AgentPorts): void {
  const records = readInflight(ports.state);
  if (!records.length) return;
  ports.log.info(`agent: watching ${records.length} rental(s) an earlier call sent`);
  background(
    (async () => {
      const api = await ports.api();
      const results = await resumeInflight({ api, log: ports.log, clock: ports.clock, ssh: ports.ssh, state: ports.state }, {
        ...(ports.pollIntervalMs ? { intervalMs: ports.pollIntervalMs } : {}),
        onFailed: (r, message) => ports.log.warn(`agent: the rental "${r.label}" failed: ${message}`),
      });
      for (const r of results) ports.log.info(`agent: rental "${r.label}"${r.instanceId !== undefined ? ` (instance ${r.instanceId})` : ''}: ${r.outcome}${r.alias ? `, ssh ${r.alias}` : ''}`);
    })(),
    ports.log,
    'watching earlier rentals',
  );
}
