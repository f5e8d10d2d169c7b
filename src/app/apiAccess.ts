// The API client as the rest of the extension gets it: loaded with the first request (its own
// bundle, dist/client.js), made again only when the URL, the demo mode or the proxy changes, and
// its keep-alive sockets closed when the extension host shuts down.
import { isLoopbackUrl } from '../api/loopback';
import type { ServiceApi } from '../api/types';
import { NOT_SIGNED_IN } from '../api/errors';
import { describeProxy, readProxySettings } from '../core/vscode/settings';
import type { ServiceBase } from './serviceBase';

let clientLoaded = false;
/** The API client bundle (dist/client.js), imported on the first request. */
function loadClient(): Promise<typeof import('../api/client')> {
  clientLoaded = true;
  return import('../api/client');
}

/** `api()` of Services: waits for the stored keys (`ready`), then the cached client. */
export function createApiAccess(base: ServiceBase, ready: () => Promise<void>): () => Promise<ServiceApi> {
  const { conn, log } = base;
  let cached: { key: string; api: ServiceApi } | undefined;
  return async (): Promise<ServiceApi> => {
    await ready();
    const b = conn.baseUrl();
    if (!b.ok) throw new Error(b.message);
    if (conn.token() === undefined) throw new Error(NOT_SIGNED_IN);
    // The in-process demo simulator is on loopback: never through a proxy.
    // This computer (the demo simulator, a local proxy or tunnel) is never reached through a proxy (src/api/loopback.ts).
    const proxy = conn.isDemo() || isLoopbackUrl(b.url) ? null : readProxySettings();
    const key = `${conn.isDemo() ? 'demo' : 'live'} ${b.url} ${JSON.stringify(proxy)}`;
    // The client (with its pacing and list logic) is its own bundle, loaded with the first request.
    const { createApiClient } = await loadClient();
    if (cached?.key !== key) {
      if (proxy?.url || (proxy && (process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy)))
        log.info(`Reaching the service through ${describeProxy(proxy.url)}${proxy.noProxy?.length ? ` (direct for ${proxy.noProxy.length} http.noProxy entr${proxy.noProxy.length === 1 ? 'y' : 'ies'})` : ''}${proxy.strictSSL === false ? ', certificates not verified (http.proxyStrictSSL off)' : ''}.`);
      cached = { key, api: createApiClient({ baseUrl: b.url, credentials: conn, log, proxy }) };
    }
    return cached.api;
  };
}

/** Closes the client's keep-alive sockets, if it was ever loaded. */
export function closeApiClient(): Promise<void> {
  return (clientLoaded ? loadClient().then((m) => m.closeApiTransport()) : Promise.resolve()).catch(() => undefined);
}
