// Templates kept by the service (GET /api/v0/template/): what a pick list shows of them, and
// the workspace template that rents one by its template_hash_id (the service merges: fields
// given in the request win, env is merged with the request's keys winning).
import type { ServerTemplate } from '../api/types';
import * as l10n from '@vscode/l10n';

export const SERVER_TEMPLATE_SCHEME = 'gpu-rental-template';

/** Container ports a template maps, from its Docker flags (`-p 8080:8080 -e X=1`). */
export function templatePorts(t: Pick<ServerTemplate, 'env'>): string[] {
  const out: string[] = [];
  const re = /(?:^|\s)-p\s+(?:[\d.]+:)?(\d{1,5}):(\d{1,5})(?:\/(tcp|udp))?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t.env ?? '')) !== null) {
    if (Number(m[1]) > 65_535 || Number(m[2]) > 65_535 || Number(m[2]) < 1) continue;
    out.push(`${m[2]}${m[3] && m[3] !== 'tcp' ? `/${m[3]}` : ''}`);
  }
  return [...new Set(out)];
}

export function templateImage(t: Pick<ServerTemplate, 'image' | 'tag'>): string {
  return t.tag ? `${t.image}:${t.tag}` : t.image;
}

/** One line for a pick list: image, runtype, ports, onstart. */
export function templateFacts(t: ServerTemplate): string {
  const ports = templatePorts(t);
  const onstart = (t.onstart ?? '').replace(/\s+/g, ' ').trim();
  return [
    templateImage(t) || undefined,
    t.runtype ? `runtype ${t.runtype}` : undefined,
    ports.length ? `ports ${ports.join(', ')}` : undefined,
    onstart ? `onstart: ${onstart.length > 60 ? `${onstart.slice(0, 59)}…` : onstart}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Recommended first, then by name (case-insensitive), as the console lists them. */
export function sortTemplates(list: readonly ServerTemplate[]): ServerTemplate[] {
  return [...list].sort(
    (a, b) => Number(!!b.recommended) - Number(!!a.recommended) || a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id - b.id,
  );
}

/** A file name for the workspace template: `.gpu/<slug>.json`. */
export function templateSlug(t: Pick<ServerTemplate, 'name' | 'hash_id'>): string {
  return (
    t.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50) || t.hash_id.slice(0, 12)
  );
}

/**
 * A workspace template that rents with the service's template: only template_hash_id and the
 * recommended disk; the image, env, onstart and runtype come from the service at creation.
 */
export function workspaceTemplateFor(t: ServerTemplate): Record<string, unknown> {
  const facts = templateFacts(t);
  const instance: Record<string, unknown> = { template_hash_id: t.hash_id };
  if (typeof t.recommended_disk_space === 'number' && t.recommended_disk_space > 0) instance.disk = Math.ceil(t.recommended_disk_space);
  return {
    name: t.name.slice(0, 80) || t.hash_id,
    description: l10n.t(
      'The service\'s template "{0}" ({1}){2}. Fields added under "instance" override it; env is merged.',
      t.name,
      t.hash_id,
      facts ? `: ${facts}` : '',
    ),
    offer: { rank: 'cheapest' },
    instance,
  };
}

export function workspaceTemplateText(t: ServerTemplate): string {
  return `${JSON.stringify(workspaceTemplateFor(t), null, 2)}\n`;
}
