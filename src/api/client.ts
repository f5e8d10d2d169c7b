// The HTTP client: one method per endpoint of the spec, composed from one module per resource
// (instances, offers, SSH keys, logs, templates, account, 2FA), each sending through the one
// pipeline (pipeline.ts) that validates requests before sending, parses answers tolerantly,
// retries only safe requests and never logs bodies or secrets. This module is its own bundle
// (dist/client.js), loaded with the first request.
import type { ServiceApi } from './types';
import { createPipeline, type ApiClientOptions } from './pipeline';
import { instanceListApi } from './instanceListApi';
import { instancesApi } from './instancesApi';
import { offersApi } from './offersApi';
import { sshKeysApi } from './sshKeysApi';
import { logsApi } from './logsApi';
import { templatesApi } from './templatesApi';
import { accountApi } from './accountApi';
import { tfaApi } from './tfaApi';
import { billingCalls } from './billingApi';
import { demoApi } from './demoApi';
import { spendRateApi } from './spendRateApi';
import { overlayApi } from './overlayApi';

export { closeApiTransport, type ApiClientOptions } from './pipeline';
export { forgetListEras, learntListEra } from './instanceListApi';

export function createApiClient(opts: ApiClientOptions): ServiceApi {
  const p = createPipeline(opts);
  const lists = instanceListApi(p);
  return {
    ...lists,
    ...instancesApi(p, lists.findInstances),
    ...offersApi(p),
    ...accountApi(p),
    ...logsApi(p),
    ...templatesApi(p),
    ...sshKeysApi(p),
    ...tfaApi(p),
    // Price increases, charges, invoices (billingApi.ts).
    ...billingCalls(p),
    ...spendRateApi(p),
    // Overlay networks for groups of machines (overlayApi.ts).
    ...overlayApi(p),
    // The simulator's fake GPU load, for the demo (demoApi.ts).
    ...demoApi(p),
    knownSecrets: () => p.knownSecrets(),
  };
}
