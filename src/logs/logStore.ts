// The logs Show Logs displays: which log (container or daemon, tail, filter) of which instance,
// its last fetched text, and whether it is followed. A read-only document per log renders this
// (src/logs/vscode/logDocuments.ts); Refresh and Follow change it. No vscode here.
import type { LogFetchOptions, ServiceApi } from '../api/types';
import { Emitter, type Event } from '../core/events';
import type { LogEntry, LogKey, LogsPort } from '../core/storePorts';
import * as l10n from '@vscode/l10n';

export const LOGS_SCHEME = 'gpu-rental-logs';
export const DEFAULT_LOG_TAIL = 1000;

/** The document path and query of a log: `/<id>/<name>.log?daemon=1&tail=1000&filter=…`. */
export function logPath(key: LogKey, name: string): { path: string; query: string } {
  const safe =
    name
      .replace(/[^\w.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || `instance-${key.instanceId}`;
  const q = new URLSearchParams();
  if (key.daemon) q.set('daemon', '1');
  q.set('tail', String(key.tail));
  if (key.filter) q.set('filter', key.filter);
  if (key.resultUrl) q.set('url', key.resultUrl);
  return { path: `/${key.instanceId}/${safe}${key.daemon ? '-daemon' : ''}.log`, query: q.toString() };
}

/** The key behind a document path and query (undefined when it is not one of ours). */
export function parseLogPath(path: string, query: string): LogKey | undefined {
  const m = /^\/(\d{1,15})\//.exec(path);
  if (!m) return undefined;
  const q = new URLSearchParams(query);
  const tail = Number(q.get('tail') ?? DEFAULT_LOG_TAIL);
  const key: LogKey = {
    instanceId: Number(m[1]),
    daemon: q.get('daemon') === '1',
    tail: Number.isInteger(tail) && tail > 0 ? tail : DEFAULT_LOG_TAIL,
  };
  const filter = q.get('filter');
  if (filter) key.filter = filter;
  const url = q.get('url');
  if (url) key.resultUrl = url;
  return key;
}

/** The key of a log document's URI (scheme, path, query), or undefined for any other document. */
export function logKeyOf(uri: { scheme: string; path: string; query: string } | undefined): LogKey | undefined {
  return uri?.scheme === LOGS_SCHEME ? parseLogPath(uri.path, uri.query) : undefined;
}

export function keyId(key: LogKey): string {
  return JSON.stringify([key.instanceId, key.daemon, key.tail, key.filter ?? '', key.resultUrl ?? '']);
}

function stamp(d: Date): string {
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** The document text: a header saying what this is and when it was fetched, then the log. */
export function renderLog(e: LogEntry, followSeconds: number): string {
  const k = e.key;
  const what = [
    k.daemon ? l10n.t('daemon log') : l10n.t('container log'),
    l10n.t('last {0} lines', k.tail),
    k.filter ? l10n.t('lines matching "{0}"', k.filter) : undefined,
    k.resultUrl ? l10n.t('captured when it failed') : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const when = e.loading && !e.fetchedAt ? 'fetching…' : e.fetchedAt ? `fetched ${stamp(e.fetchedAt)}` : l10n.t('not fetched yet');
  const follow = e.following ? l10n.t(' · following every {0} s', followSeconds) : '';
  const head = `# ${e.name} (#${k.instanceId}) · ${what} · ${when}${follow}`;
  if (e.error)
    return l10n.t('{0}\n# Could not fetch the log: {1}\n# Use Refresh (the editor title) to try again.\n{2}', head, e.error, e.text ? `\n${e.text}` : '');
  if (e.text === undefined) return l10n.t('{0}\n# Waiting for the service to upload the log…\n', head);
  return `${head}\n${e.text.length ? e.text : l10n.t('# (the log is empty)\n')}`;
}

export interface InstanceLogStoreDeps {
  api(): Promise<ServiceApi>;
  describeError(e: unknown): string;
  /** Retry timing of fetchLogs (tests); defaults to the client's 30 × 0.3 s. */
  fetchOptions?: LogFetchOptions;
  now?(): Date;
}

export class InstanceLogStore implements LogsPort {
  private readonly entries = new Map<string, LogEntry>();
  private readonly inflight = new Map<string, Promise<LogEntry>>();
  private readonly changed = new Emitter<LogKey>();
  readonly onDidChange: Event<LogKey> = this.changed.event;

  constructor(private readonly deps: InstanceLogStoreDeps) {}

  get(key: LogKey): LogEntry | undefined {
    return this.entries.get(keyId(key));
  }

  /** The entry for a key, created (not fetched) on first use. */
  open(key: LogKey, name: string): LogEntry {
    const id = keyId(key);
    let e = this.entries.get(id);
    if (!e) {
      e = { key, name, following: false, loading: false };
      this.entries.set(id, e);
    } else if (name) e.name = name;
    return e;
  }

  /** Fetches the log again (one request at a time per log); the entry keeps the last good text on failure. */
  refresh(key: LogKey, name = `#${key.instanceId}`): Promise<LogEntry> {
    const id = keyId(key);
    const running = this.inflight.get(id);
    if (running) return running;
    const e = this.open(key, name);
    e.loading = true;
    this.changed.fire(key);
    const p = (async () => {
      try {
        const api = await this.deps.api();
        const url =
          key.resultUrl ??
          (await api.requestLogs(key.instanceId, { tail: key.tail, daemonLogs: key.daemon, ...(key.filter ? { filter: key.filter } : {}) })).result_url;
        e.text = await api.fetchLogs(url, this.deps.fetchOptions);
        e.error = undefined;
        e.fetchedAt = this.deps.now?.() ?? new Date();
      } catch (err) {
        e.error = this.deps.describeError(err);
      } finally {
        e.loading = false;
        this.inflight.delete(id);
        this.changed.fire(key);
      }
      return e;
    })();
    this.inflight.set(id, p);
    return p;
  }

  setFollowing(key: LogKey, on: boolean): void {
    const e = this.entries.get(keyId(key));
    if (!e || e.following === on) return;
    e.following = on;
    this.changed.fire(key);
  }

  following(): LogKey[] {
    return [...this.entries.values()].filter((e) => e.following).map((e) => e.key);
  }

  /** The document was closed: forget its text and stop following it. */
  close(key: LogKey): void {
    this.entries.delete(keyId(key));
  }

  dispose(): void {
    this.entries.clear();
    this.changed.dispose();
  }
}
