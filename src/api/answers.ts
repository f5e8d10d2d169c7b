// The pipeline's reading of what came back (pipeline.ts): a transport failure, an HTTP error or
// a 2xx answer, each turned into the parsed result or an ApiError that says what happened. A
// creation whose outcome cannot be known is reported as ambiguous, never as a plain failure.
import type { Endpoint } from './pipeline';
import type { TransportResponse } from './transport';
import { ApiError, errorFromResponse, parseErrorBody } from './errors';
import type * as Schemas from './schemas';

interface TransportFailure {
  name: 'TransportError';
  kind: 'network' | 'timeout' | 'aborted' | 'too_large';
  sent: boolean;
  message: string;
}
export function isTransportFailure(e: unknown): e is TransportFailure {
  return !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'TransportError';
}

export function abortError(method: string, path: string): ApiError {
  return new ApiError({ kind: 'aborted', method, path, message: `${method} ${path} was cancelled` });
}

export function transportToApiError(e: unknown, ep: Endpoint<unknown>, timeoutMs: number): ApiError {
  const { method, path } = ep;
  if (!isTransportFailure(e))
    return new ApiError({
      kind: 'network',
      method,
      path,
      message: `${method} ${path}: the HTTP component failed (${e instanceof Error ? e.message : String(e)}); reinstall the extension if this persists`,
    });
  if (ep.creation && e.sent)
    return new ApiError({
      kind: 'ambiguous',
      cause: e.kind,
      method,
      path,
      message: `${method} ${path}: the outcome is unknown (${e.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : e.kind === 'aborted' ? 'cancelled after sending' : e.message}); the instance may have been created, so the instance list will be checked before anything else`,
    });
  if (e.kind === 'aborted') return abortError(method, path);
  if (e.kind === 'too_large') return new ApiError({ kind: 'too_large', method, path, message: `${method} ${path}: ${e.message}` });
  if (e.kind === 'timeout') return new ApiError({ kind: 'timeout', method, path, message: `${method} ${path}: no answer within ${timeoutMs} ms` });
  return new ApiError({ kind: 'network', method, path, message: `${method} ${path}: ${e.message}` });
}

export function httpError(ep: Endpoint<unknown>, res: TransportResponse, knownSecrets: Array<string | undefined>): ApiError {
  const { method, path } = ep;
  const retryAfter = Number(res.headers['retry-after']);
  const err = errorFromResponse(method, path, res.status, res.text, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined, knownSecrets);
  // A 5xx without a structured error body does not prove the service rejected the creation.
  if (ep.creation && res.status >= 500 && !parseErrorBody(res.text).structured)
    return new ApiError({
      kind: 'ambiguous',
      cause: 'http',
      status: res.status,
      method,
      path,
      message: `${method} ${path}: HTTP ${res.status} without an explanation, so the outcome is unknown; the instance list will be checked before anything else`,
    });
  return err;
}

/** A 2xx answer: JSON (or an empty body where allowed), not `{"success": false, …}`, matching the endpoint's schema. */
export function parseAnswer<T>(ep: Endpoint<T>, res: TransportResponse, s: typeof Schemas, knownSecrets: Array<string | undefined>): T {
  const { method, path } = ep;
  // A creation answer that cannot be read does not say whether a machine was rented: it is
  // ambiguous like a timeout, and the caller reconciles through the instance list.
  const malformed = (why: string) =>
    ep.creation
      ? new ApiError({
          kind: 'ambiguous',
          cause: 'malformed',
          status: res.status,
          method,
          path,
          message: `${method} ${path}: the answer could not be read (${why}), so the outcome is unknown; the instance list will be checked before anything else`,
        })
      : new ApiError({ kind: 'malformed', status: res.status, method, path, message: `${method} ${path}: unexpected answer from the service (${why})` });
  const ct = (res.headers['content-type'] ?? '').toLowerCase();
  const text = res.text.trim();
  let json: unknown;
  if (text === '' && ep.emptyOk) json = {};
  else {
    if (ct && !/^application\/([\w.-]+\+)?json\b/.test(ct)) throw malformed(`content type ${ct.split(';')[0]} instead of JSON`);
    try {
      json = JSON.parse(text);
    } catch {
      throw malformed('the body is not JSON');
    }
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const j = json as Record<string, unknown>;
    if (j.success === false && (typeof j.error === 'string' || typeof j.msg === 'string' || typeof j.message === 'string'))
      throw errorFromResponse(method, path, res.status, text, undefined, knownSecrets);
  }
  const r = s.safeParse(ep.schema(s), json);
  if (!r.success) {
    const fields = [...new Set(r.error.issues.map((i) => i.path.map(String).join('.') || '(root)'))].slice(0, 5);
    throw malformed(`fields ${fields.join(', ')} do not match`);
  }
  return r.data;
}
