// Instance logs: ask the service to upload them (PUT request_logs), then fetch the upload from
// its storage address, without the API key, waiting until it lands.
import type { LogFetchOptions, ServiceApi } from './types';
import type { TransportResponse } from './transport';
import { ApiError } from './errors';
import { abortError, isTransportFailure } from './answers';
import { invalid, positiveId, sleep, type Pipeline } from './pipeline';
import { INSTANCES_PATH as I } from './instanceListApi';
import { redactLog, resultUrlProblem } from './logs';
import * as l10n from '@vscode/l10n';

/** The uploaded log: a plain GET, never with the API key (the address is the service's storage). */
async function fetchLogs(p: Pipeline, resultUrl: string, o: LogFetchOptions | undefined): Promise<string> {
  const problem = resultUrlProblem(resultUrl);
  if (problem) throw new ApiError({ kind: 'malformed', method: 'GET', path: 'result_url', message: l10n.t('Could not fetch the log: {0}.', problem) });
  const u = new URL(resultUrl);
  const where = `${u.origin}${u.pathname}`; // the query may carry a signature: never logged
  const attempts = Math.max(1, Math.floor(o?.attempts ?? 30));
  const interval = Math.max(0, o?.intervalMs ?? 300);
  const pause = o?.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, signal, () => abortError('GET', where)));
  const t = await p.transport();
  let last = '';
  for (let i = 1; i <= attempts; i++) {
    if (o?.signal?.aborted) throw abortError('GET', where);
    let res: TransportResponse | undefined;
    try {
      res = await t.request({
        baseUrl: u.origin,
        method: 'GET',
        path: u.pathname + u.search,
        headers: { accept: 'text/plain, */*', 'user-agent': p.userAgent },
        timeoutMs: o?.timeoutMs ?? p.defaultTimeout,
        proxy: p.proxy,
        ...(o?.signal ? { signal: o.signal } : {}),
      });
    } catch (e) {
      const f = isTransportFailure(e) ? e : undefined;
      if (f?.kind === 'aborted' || o?.signal?.aborted) throw abortError('GET', where);
      // a log too large to read stays too large: no point asking again
      if (f?.kind === 'too_large')
        throw new ApiError({
          kind: 'too_large',
          method: 'GET',
          path: where,
          message: l10n.t('The log could not be read: {0}. Ask for fewer lines (tail) or a filter.', f.message),
        });
      last = f ? f.message : String(e);
    }
    if (res) {
      p.log.debug(`GET ${where} -> ${res.status} (log upload, attempt ${i}/${attempts})`);
      if (res.status >= 200 && res.status < 300) return redactLog(res.text, p.knownSecrets());
      // 404 (or a bucket's 403) until the upload lands; 5xx may pass
      if (res.status !== 404 && res.status !== 403 && res.status < 500) {
        throw new ApiError({
          kind: 'http',
          status: res.status,
          method: 'GET',
          path: where,
          message: `GET ${where}: HTTP ${res.status} while fetching the log`,
        });
      }
      last = `HTTP ${res.status}`;
    }
    if (i < attempts) await pause(interval, o?.signal);
  }
  throw new ApiError({
    kind: 'timeout',
    method: 'GET',
    path: where,
    message: l10n.t(
      'The log was not uploaded after {0} tries over about {1} s (last answer: {2}). Try Refresh in a moment.',
      attempts,
      Math.round((attempts * interval) / 1000),
      last,
    ),
  });
}

export function logsApi(p: Pipeline): Pick<ServiceApi, 'requestLogs' | 'fetchLogs'> {
  return {
    async requestLogs(id, req = {}, o) {
      positiveId(id, 'requestLogs');
      const problems: string[] = [];
      if (req.tail !== undefined && !(Number.isInteger(req.tail) && req.tail > 0 && req.tail <= 100_000))
        problems.push(l10n.t('tail: must be a whole number of lines from 1 to 100000'));
      if (req.filter !== undefined && typeof req.filter !== 'string') problems.push(l10n.t('filter: must be text'));
      if (problems.length) throw invalid('requestLogs', problems);
      // The service takes every value as a string, as the official CLI sends them.
      const body: Record<string, string> = {};
      if (req.tail !== undefined) body.tail = String(req.tail);
      if (req.filter) body.filter = req.filter;
      if (req.daemonLogs) body.daemon_logs = 'true';
      return p.send({ method: 'PUT', path: `${I}request_logs/${id}/`, body, schema: (s) => s.logRequestResultSchema }, o);
    },
    fetchLogs: (url, o) => fetchLogs(p, url, o),
  };
}
