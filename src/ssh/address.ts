// The one rule for where an instance's SSH listens (service-today section 4, the official
// CLI's ssh-url): direct when `ports` maps 22/tcp, else the proxy, one port up for a
// Jupyter-proxy instance. User root. Every consumer (SSH entries and their sync, Copy SSH
// Command, the terminal fallback, the tooltip, Connect) asks here.
import type { Instance } from '../api/types';
import * as l10n from '@vscode/l10n';

export interface SshRoute {
  host: string;
  port: number;
  kind: 'direct' | 'proxy' | 'jupyter-proxy';
}

export interface SshAddress extends SshRoute {
  /**
   * For a direct address: the proxy route of the same instance, when the record has one. Direct
   * ports can be unreachable (a host's firewall); the proxy then still works.
   */
  fallback?: SshRoute;
}

type AddressFields = Pick<Instance, 'ports' | 'public_ipaddr' | 'ssh_host' | 'ssh_port' | 'image_runtype'>;

const validPort = (p: unknown): p is number => typeof p === 'number' && Number.isInteger(p) && p > 0 && p < 65536;

/** The proxy route alone: ssh_host:ssh_port, plus one when image_runtype contains "jupyter" (by substring). */
export function proxyRoute(i: AddressFields): SshRoute | undefined {
  const host = i.ssh_host?.trim();
  if (!host || !validPort(i.ssh_port)) return undefined;
  const jupyter = /jupyter/.test(i.image_runtype ?? '');
  const port = i.ssh_port + (jupyter ? 1 : 0);
  return validPort(port) ? { host, port, kind: jupyter ? 'jupyter-proxy' : 'proxy' } : undefined;
}

/** Where to connect, or undefined while the instance has no SSH address. */
export function sshAddress(i: AddressFields): SshAddress | undefined {
  const direct = i.ports?.find((p) => p.container === '22/tcp');
  const ip = i.public_ipaddr?.trim();
  const proxy = proxyRoute(i);
  if (direct && ip && validPort(direct.hostPort)) return { host: ip, port: direct.hostPort, kind: 'direct', ...(proxy ? { fallback: proxy } : {}) };
  return proxy;
}

/** "host:port (direct; proxy host:port)" for tooltips and details. */
export function describeSshAddress(a: SshAddress): string {
  const main = `${a.host}:${a.port} (${a.kind === 'direct' ? 'direct' : a.kind === 'jupyter-proxy' ? l10n.t('Jupyter proxy') : 'proxy'}`;
  return a.fallback ? `${main}; proxy ${a.fallback.host}:${a.fallback.port})` : `${main})`;
}
