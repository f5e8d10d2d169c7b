// Access to the simulator's test-control endpoints (/_sim/...) from integration tests.
import * as assert from 'node:assert/strict';
import { SimControl } from '../../../src/sim/control';
import type { Instance, OfferQuery } from '../../../src/api/types';
import type { Services } from '../../../src/core/vscode/services';
import { simUrl, waitFor } from './framework';

export { SimControl };

/** The control client (clock, faults, outbox, seed, reset) for the simulator the runner started. */
export function simControl(): SimControl {
  return new SimControl(simUrl());
}

/**
 * Rents the first offer `search` finds (signed in already), ends its boot on the simulator and
 * waits until the Instances store shows it running with an SSH address.
 */
export async function runningInstance(
  services: Services,
  label: string,
  { image = 'pytorch/pytorch', search = { limit: 5 } }: { image?: string; search?: OfferQuery } = {},
): Promise<Instance> {
  const api = await services.api();
  const [offer] = await api.searchOffers(search);
  assert.ok(offer, 'the simulator offered no machine');
  const created = await api.createInstance(offer.id, { image, label, disk: 10 });
  await simControl().finishBoot(created.new_contract);
  return waitFor(
    async () => {
      await services.instances.refresh();
      const i = services.instances.get(created.new_contract);
      return i?.state === 'running' && !!i.ssh_host && !!i.ssh_port ? i : undefined;
    },
    10_000,
    'the instance to run',
  );
}
