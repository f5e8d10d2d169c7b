// The API client as the rest of the extension gets it. apiClientFactory is the one place a client
// is made (the lint allows createApiClient nowhere else in src/): the client bundle
// (dist/client.js) loaded with the first request, VS Code's proxy settings applied to every
// client (the API key check included: docs/proxies.md), this computer never proxied, a client
// made again only when the URL, the demo mode or the proxy changes, and its keep-alive sockets
// closed when the extension host shuts down.
import { isLoopbackUrl } from '../api/loopback';
import type { Credentials, Logger, ServiceApi, User } from '../api/types';
import type { ProxySettings } from '../api/transport';
import { notSignedIn } from '../api/errors';
import type { ConnectionState } from '../core/connection';
import { describeProxy, readProxySettings } from '../core/vscode/settings';
import type { ServiceBase } from './serviceBase';

let clientLoaded = false;
/** The API client bundle (dist/client.js), imported on the first request. */
function loadClient(): Promise<typeof import('../api/client')> {
  clientLoaded = true;
  return import('../api/client');
}

/** A client of `baseUrl` sending what `credentials` hold; the same client again while nothing it depends on changed. */
export type ApiClientFactory = (baseUrl: string, credentials: Credentials) => Promise<ServiceApi>;

export interface ClientFactoryDeps {
  log: Logger;
  isDemo(): boolean;
  /** VS Code's http.proxy settings (the user's own values); a test passes its own. */
  readProxy?: () => ProxySettings | null;
}

/** The one factory of API clients. */
export function apiClientFactory({ log, isDemo, readProxy = readProxySettings }: ClientFactoryDeps): ApiClientFactory {
  const cache = new WeakMap<Credentials, { key: string; api: ServiceApi }>();
  return async (baseUrl, credentials) => {
    // This computer (the demo simulator, a local proxy or tunnel) is never reached through a proxy (src/api/loopback.ts).
    const proxy = isDemo() || isLoopbackUrl(baseUrl) ? null : readProxy();
    const key = `${isDemo() ? 'demo' : 'live'} ${baseUrl} ${JSON.stringify(proxy)}`;
    const { createApiClient } = await loadClient();
    const hit = cache.get(credentials);
    if (hit?.key === key) return hit.api;
    if (proxy?.url || (proxy && (process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy)))
      log.info(
        `Reaching the service through ${describeProxy(proxy.url)}${proxy.noProxy?.length ? ` (direct for ${proxy.noProxy.length} http.noProxy entr${proxy.noProxy.length === 1 ? 'y' : 'ies'})` : ''}${proxy.strictSSL === false ? ', certificates not verified (http.proxyStrictSSL off)' : ''}.`,
      );
    const api = createApiClient({ baseUrl, credentials, log, proxy });
    cache.set(credentials, { key, api });
    return api;
  };
}

/** `api()` of Services: waits for the stored keys (`ready`), then the connection's client. */
export function createApiAccess(base: ServiceBase, clients: ApiClientFactory, ready: () => Promise<void>): () => Promise<ServiceApi> {
  const { conn } = base;
  return async (): Promise<ServiceApi> => {
    await ready();
    const b = conn.baseUrl();
    if (!b.ok) throw new Error(b.message);
    if (conn.token() === undefined) throw new Error(notSignedIn());
    return clients(b.url, conn);
  };
}

/** Checks a key with GET /users/current/ at the connection's URL, through the same factory (and proxy) as every request. */
export function keyCheck(conn: Pick<ConnectionState, 'baseUrl'>, clients: ApiClientFactory): (key: string) => Promise<User> {
  return async (key) => {
    const b = conn.baseUrl();
    if (!b.ok) throw new Error(b.message);
    return (await clients(b.url, { token: () => key })).currentUser();
  };
}

/** Closes the client's keep-alive sockets, if it was ever loaded. */
export function closeApiClient(): Promise<void> {
  return (clientLoaded ? loadClient().then((m) => m.closeApiTransport()) : Promise.resolve()).catch(() => undefined);
}
