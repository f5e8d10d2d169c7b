// The one rule for where an instance's SSH listens (service-today section 4, the official
// CLI's ssh-url): direct when `ports` maps 22/tcp, else the proxy, one port up for a
// Jupyter-proxy instance. User root.
import type { Instance } from '../api/types';

export interface SshAddress {
  host: string;
  port: number;
  kind: 'direct' | 'proxy' | 'jupyter-proxy';
}

const validPort = (p: unknown): p is number => typeof p === 'number' && Number.isInteger(p) && p > 0 && p < 65536;

/** Where to connect, or undefined while the instance has no SSH address. */
export function sshAddress(i: Pick<Instance, 'ports' | 'public_ipaddr' | 'ssh_host' | 'ssh_port' | 'image_runtype'>): SshAddress | undefined {
  const direct = i.ports?.find((p) => p.container === '22/tcp');
  const ip = i.public_ipaddr?.trim();
  if (direct && ip && validPort(direct.hostPort)) return { host: ip, port: direct.hostPort, kind: 'direct' };
  const host = i.ssh_host?.trim();
  if (!host || !validPort(i.ssh_port)) return undefined;
  const jupyter = /jupyter/.test(i.image_runtype ?? '');
  const port = i.ssh_port + (jupyter ? 1 : 0);
  return validPort(port) ? { host, port, kind: jupyter ? 'jupyter-proxy' : 'proxy' } : undefined;
}
